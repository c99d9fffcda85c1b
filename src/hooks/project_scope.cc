#include "hooks/project_scope.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <vector>

#include "common/sha256.h"
#include "common/utf8.h"

namespace pc {
namespace {

constexpr size_t kMaxScopeLength = 256;
// A remote URL longer than this is not one we name a scope after (the path scope is used): the
// regexes below recurse per character, and a 5 MB url in a repository's .git/config overflowed
// the stack of every hook run in it.
constexpr size_t kMaxRemoteBytes = 4096;
constexpr size_t kMaxGitOutputBytes = 64 * 1024;  // only git's first line is used

// `git ARGS` in `dir`: its first line of output, or nullopt (no git, an error, over 2 s).
std::optional<std::string> Git(const std::string& dir, std::vector<std::string> args) {
  int out[2];
  if (pipe(out) != 0) return std::nullopt;
  pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 2);
    std::vector<std::string> argv = {"git", "-C", dir};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    execvp("git", c.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool timed_out = false;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxGitOutputBytes) {
      timed_out = true;  // too much output: no answer, as a timeout
      break;
    }
  }
  close(out[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  const size_t nl = text.find('\n');
  std::string line = text.substr(0, nl);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.empty()) return std::nullopt;
  return line;
}

std::string NormalizePath(std::string path) {
  for (char& c : path)
    if (c == '\\') c = '/';
  std::string out;
  size_t at = 0;
  while (at <= path.size()) {
    size_t end = path.find('/', at);
    if (end == std::string::npos) end = path.size();
    if (end > at) out += (out.empty() ? "" : "/") + path.substr(at, end - at);
    at = end + 1;
  }
  if (out.size() >= 4 && out.compare(out.size() - 4, 4, ".git") == 0) out.resize(out.size() - 4);
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Bounded(const std::string& prefix, const std::string& value) {
  const std::string id = prefix + ":" + value;
  if (id.size() <= kMaxScopeLength) return id;
  return prefix + ":sha256:" + Sha256Hex(value);
}

}  // namespace

std::optional<std::string> NormalizeGitRemote(const std::string& remote) {
  std::string value = remote;
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
    value.erase(0, 1);
  if (value.empty() || value.size() > kMaxRemoteBytes || !IsValidUtf8(value))
    return std::nullopt;  // UTF-8 text
  // No URL holds a control character, and one (a line break the regexes' `.` does not match)
  // made them backtrack: the fuzzer's 733-byte remote took 18 s.
  if (std::any_of(value.begin(), value.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return std::nullopt;
  static const std::regex kScp(R"(^(?:[^@/\s]+@)?([^:/\s]+):(.+)$)");
  std::smatch m;
  if (value.find("://") == std::string::npos) {
    if (!std::regex_match(value, m, kScp)) return std::nullopt;
    const std::string path = NormalizePath(m[2].str());
    if (path.empty()) return std::nullopt;
    return Lower(m[1].str()) + "/" + path;
  }
  static const std::regex kUrl(
      R"(^([A-Za-z][A-Za-z0-9+.-]*)://(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)(?::([0-9]+))?([^?#]*).*$)");
  if (!std::regex_match(value, m, kUrl)) return std::nullopt;
  const std::string scheme = Lower(m[1].str());
  if (scheme != "http" && scheme != "https" && scheme != "ssh" && scheme != "git")
    return std::nullopt;
  std::string host = Lower(m[2].str());
  if (host.empty()) return std::nullopt;
  if (m[3].matched && !m[3].str().empty()) {
    if (m[3].length() > 5 || std::stoul(m[3].str()) > 65535) return std::nullopt;  // not a port
    host += ":" + std::to_string(std::stoul(m[3].str()));
  }
  const std::string path = NormalizePath(m[4].str());
  if (path.empty()) return std::nullopt;
  return host + "/" + path;
}

std::string DeriveProjectScope(const std::string& cwd) {
  std::error_code ec;
  std::string root = Git(cwd, {"rev-parse", "--show-toplevel"}).value_or(cwd);
  auto resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(root, ec), ec);
  if (!ec) root = resolved.string();
  if (auto remote = Git(root, {"config", "--get", "remote.origin.url"}))
    if (auto normalized = NormalizeGitRemote(*remote)) return Bounded("git", *normalized);
  return "local:" + Sha256Hex(root);
}

}  // namespace pc
