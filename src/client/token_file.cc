#include "client/token_file.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace pc {

std::string TokenFilePath() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
    return std::string(x) + "/powercontext/token";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.config/powercontext/token";
  return "";
}

std::string ReadTokenFile() {
  const std::string path = TokenFilePath();
  if (path.empty()) return "";
  std::ifstream in(path);
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  return token;
}

Status WriteTokenFile(const std::string& token) {
  const std::string path = TokenFilePath();
  if (path.empty())
    return InvalidArgument("no home directory to keep the token in (set HOME or XDG_CONFIG_HOME)");
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    const mode_t before = ::umask(077);  // created 0600: readable by nobody else at any moment
    std::ofstream out(tmp, std::ios::trunc);
    ::umask(before);
    if (!out) return InvalidArgument("cannot write " + tmp);
    ::chmod(tmp.c_str(), 0600);  // an existing file keeps its mode through trunc
    out << token << "\n";
    out.close();
    if (!out) return InvalidArgument("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return InvalidArgument("cannot write " + path + ": " + ec.message());
  return Status::Ok();
}

}  // namespace pc
