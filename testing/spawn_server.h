// A `powercontext serve` for a benchmark, on a free loopback port, answering as itself.
#pragma once

#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "free_port.h"

namespace pc {

// Starts `args` (a server command line without --listen) with `--listen 127.0.0.1:PORT` on a free
// port and waits up to `timeout_ms` until GET `path` answers 200 from it: from its own listening
// socket (testing::ListensOn), not from a server another test or benchmark started on the same
// port meanwhile. A server that exits before answering (the port was taken) is started again on
// another port. Its pid and `port`, or -1 when it never answered (it is killed).
inline pid_t SpawnServer(const std::vector<std::string>& args, int& port, double timeout_ms,
                         const char* path = "/health/ready") {
  const auto t0 = std::chrono::steady_clock::now();
  for (int attempt = 0; attempt < 5 && MillisSince(t0) < timeout_ms; ++attempt) {
    port = testing::FreePort();
    std::vector<std::string> listening = args;
    listening.insert(listening.end(), {"--listen", "127.0.0.1:" + std::to_string(port)});
    const pid_t pid = SpawnQuiet(listening);
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(0, 100000);
    const auto started = testing::WaitUntilServing(
        pid, port,
        [&] {
          auto res = client.Get(path);
          return res && res->status == 200;
        },
        t0 + std::chrono::microseconds(static_cast<int64_t>(timeout_ms * 1000)),
        std::chrono::milliseconds(5));
    if (started == testing::Started::kServing) return pid;
    if (started == testing::Started::kTimedOut) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return -1;
    }
  }
  return -1;
}

}  // namespace pc
