// The top level of a background thread: no exception may leave a thread (std::terminate would
// end the server). What escapes `fn` is logged with `what`, and the thread goes on.
#pragma once

#include <exception>
#include <iostream>

namespace pc {

template <typename Fn>
bool RunGuarded(const char* what, Fn&& fn) noexcept {
  try {
    fn();
    return true;
  } catch (const std::exception& e) {
    std::cerr << "powercontext: unexpected error in " << what << ": " << e.what() << std::endl;
  } catch (...) {
    std::cerr << "powercontext: unexpected error in " << what << std::endl;
  }
  return false;
}

}  // namespace pc
