// The program of each layer_check_<name> (CMakeLists.txt, pc_service_library): it links one
// service library whole against only the libraries it declares, so an undeclared call is a link
// error. It is built, never run.
int main() { return 0; }
