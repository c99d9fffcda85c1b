// What the host hooks cost the agent per event: wall time of `powercontext hook claude-code EVENT`
// as the host runs it (a new process, its JSON on stdin, until it exits), against a local server
// with a filled scope, no model. docs/integrations.md quotes it.
//
//   build/bench/hook_bench [--entries 2000] [--runs 200] [--server BIN]
//
// prompt: prepare_context for a prompt (half Chinese) and the prompt captured as a source;
// session-start: the latest handoff (none here) and prepared context; stop: a recorded Claude Code
// transcript captured (the first run; later runs find nothing new), then flush and handoff asked
// of a server without a model (they answer at once that one is needed).
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "spawn_server.h"

namespace pc {
namespace {

using Json = nlohmann::json;

// Runs `args` with `input` on stdin and its output discarded; milliseconds until it exits.
double TimedRun(std::vector<std::string> args, const std::string& input) {
  int in[2];
  if (pipe(in) != 0) std::abort();
  fcntl(in[1], F_SETFD, FD_CLOEXEC);  // the child keeps only the read end
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = SpawnQuiet(std::move(args), in[0]);
  close(in[0]);
  (void)!write(in[1], input.data(), input.size());
  close(in[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "hook_bench: the hook failed (status %d)\n", status);
    std::exit(1);
  }
  return MillisSince(t0);
}

void Report(const char* name, const std::vector<double>& ms) {
  std::printf("| %s | %zu | %.1f | %.1f | %.1f |\n", name, ms.size(), Percentile(ms, 0.5),
              Percentile(ms, 0.95), Percentile(ms, 0.99));
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  using namespace pc;
  int entries = 2000, runs = 200;
  std::string binary;
  {
    std::filesystem::path self =
        std::filesystem::canonical("/proc/self/exe").parent_path().parent_path() / "powercontext";
    if (std::filesystem::exists(self)) binary = self.string();
  }
  if (!ParseFlags(argc, argv, {{"--entries", &entries}, {"--runs", &runs}, {"--server", &binary}},
                  "usage: hook_bench [--entries 2000] [--runs 200] [--server BIN]\n"))
    return 2;
  const std::string dir = ScratchDir("pchook");
  int port = 0;
  const pid_t server = SpawnServer({binary, "serve", "--data", dir + "/data"}, port, 30000);
  if (server <= 0) {
    std::fprintf(stderr, "hook_bench: the server did not start\n");
    return 1;
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  httplib::Client http("127.0.0.1", port);
  http.set_tcp_nodelay(true);
  const std::string scope = "git:github.com/acme/orders-importer";
  const char* topics[] = {"the CSV importer", "订单金额", "the nightly job", "重试策略",
                          "webhook retries",  "发票导出", "the billing API", "数据库迁移"};
  for (int i = 0; i < entries; ++i) {
    const std::string text = std::string(i % 2 ? "决定：" : "Decision: ") + topics[i % 8] +
                             " rule " + std::to_string(i) +
                             (i % 2 ? "，金额以整数分存储。" : " keeps amounts as integer cents.");
    auto r = http.Post("/v1/memory/remember",
                       Json{{"scope_id", scope}, {"kind", "decision"}, {"text", text}}.dump(),
                       "application/json");
    if (!r || r->status != 200) {
      std::fprintf(stderr, "hook_bench: filling failed\n");
      return 1;
    }
  }
  const std::string transcript = std::filesystem::canonical("/proc/self/exe")
                                     .parent_path()
                                     .parent_path()
                                     .parent_path()
                                     .string() +
                                 "/tests/data/transcripts/claude_code_zh.jsonl";
  std::vector<std::string> base = {binary,        "hook",        "claude-code", "",
                                   "--server",    url,           "--scope",     scope,
                                   "--state-dir", dir + "/state"};
  std::vector<double> prompt, start, stop;
  for (int i = 0; i < runs; ++i) {
    auto args = base;
    args[3] = "prompt";
    const std::string p = std::string(i % 2 ? "我们的" : "How do we handle ") + topics[i % 8] +
                          (i % 2 ? "是怎么处理的？" : "?") + " (" + std::to_string(i) + ")";
    prompt.push_back(TimedRun(args, Json{{"session_id", "bench"},
                                         {"cwd", dir},
                                         {"hook_event_name", "UserPromptSubmit"},
                                         {"prompt", p}}
                                        .dump()));
  }
  for (int i = 0; i < runs; ++i) {
    auto args = base;
    args[3] = "session-start";
    start.push_back(TimedRun(args, Json{{"session_id", "bench"},
                                        {"cwd", dir},
                                        {"hook_event_name", "SessionStart"},
                                        {"source", "startup"}}
                                       .dump()));
  }
  for (int i = 0; i < runs; ++i) {
    auto args = base;
    args[3] = "stop";
    stop.push_back(TimedRun(args, Json{{"session_id", "bench-" + std::to_string(i % 20)},
                                       {"cwd", dir},
                                       {"hook_event_name", "Stop"},
                                       {"transcript_path", transcript}}
                                      .dump()));
  }
  std::printf(
      "%d entries in the scope, %d runs per event\n\n| event | runs | p50 ms | p95 ms | p99 ms "
      "|\n|---|---|---|---|---|\n",
      entries, runs);
  Report("prompt (prepare + capture)", prompt);
  Report("session-start (handoff + prepare)", start);
  Report("stop (transcript capture; no model)", stop);
  kill(server, SIGTERM);
  waitpid(server, nullptr, 0);
  std::filesystem::remove_all(dir);
  return 0;
}
