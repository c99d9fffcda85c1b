// A free loopback TCP port, for starting a server process on it (tests and benchmarks): bind to
// port 0, read the port back, close. Another process may take it meanwhile; callers retry, and
// check with ListensOn that the server answering there is theirs.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace pc::testing {

inline int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

// Whether process `pid` holds a socket listening on TCP `port` (any address): its descriptors'
// socket inodes against its network namespace's LISTEN entries. An answer on the port alone does
// not say whose server gave it: two tests may be handed the same free port, and a server that
// then fails to bind it exits after the other's answer was already taken for its own.
inline bool ListensOn(pid_t pid, int port) {
  std::vector<std::string> inodes;
  const std::string proc = "/proc/" + std::to_string(pid);
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator(proc + "/fd", ec)) {
    const std::string link = std::filesystem::read_symlink(fd.path(), ec).string();
    if (!ec && link.rfind("socket:[", 0) == 0)  // socket:[12345]
      inodes.push_back(link.substr(8, link.size() - 9));
  }
  char hex_port[8];
  std::snprintf(hex_port, sizeof hex_port, "%04X", port);
  for (const char* table : {"/net/tcp", "/net/tcp6"}) {
    std::ifstream in(proc + table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      std::istringstream fields(line);
      std::string sl, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      const size_t colon = local.rfind(':');
      if (state != "0A" || colon == std::string::npos || local.substr(colon + 1) != hex_port)
        continue;
      for (const std::string& mine : inodes)
        if (mine == inode) return true;
    }
  }
  return false;
}

enum class Started { kServing, kExited, kTimedOut };

// After starting server `pid` on `port`: polls `answers` (whether a request to the port was
// answered as wanted) every `pause` until an answer comes from `pid`'s own socket (ListensOn), the
// process exits (it could not bind the port, say: start it again on another), or `deadline`.
template <typename Answers>
Started WaitUntilServing(pid_t pid, int port, Answers answers,
                         std::chrono::steady_clock::time_point deadline,
                         std::chrono::milliseconds pause) {
  while (std::chrono::steady_clock::now() < deadline) {
    if (answers() && ListensOn(pid, port)) return Started::kServing;
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return Started::kExited;
    std::this_thread::sleep_for(pause);
  }
  return Started::kTimedOut;
}

}  // namespace pc::testing
