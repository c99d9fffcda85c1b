// remember over HTTP, durable (synchronous=FULL), against the bare commit in the same run.
//
//   build/bench/http_bench [--requests 2000] [--clients 16] [--durability full|normal]
//                          [--http-threads 64]
//
// A real HttpServer (the same routes, thread pool and settings as `powercontext serve`) on a free
// loopback port over a fresh store in a temp dir. First the floor: MemoryService::Remember called
// directly, one at a time (validation, hash, dedup, one durable commit). Then one keep-alive HTTP
// client sending remembers one after another (p50/p95/p99), then N clients at once (throughput;
// group commit shares their fsyncs).
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/http_server.h"
#include "app/config.h"
#include "app/runtime.h"
#include "bench_util.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

int Run(int requests, int clients, const std::string& durability, int http_threads) {
  std::string dir = ScratchDir("pchttp");
  Config config;
  config.data_dir = dir;
  config.durability = durability;
  auto rt = std::move(BuildRuntime(config)).value();
  std::string scope = rt->memory->CreateScope("bench").value().scope.scope_id;

  // Each of the concurrent phases below: `clients` writers (or clients) of `each` requests.
  const int each = requests / clients * 2, total = each * clients;
  std::vector<double> floor;
  for (int i = 0; i < requests; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!rt->memory->Remember({scope, "fact", "floor entry " + std::to_string(i), "", "bench", {}})
             .ok())
      return 1;
    floor.push_back(MillisSince(t0));
  }

  // The same concurrency without HTTP: N threads calling MemoryService::Remember, so the store's
  // group-commit throughput can be told apart from the HTTP server's cost.
  double direct_rate = 0, direct_batch = 0;
  {
    std::vector<std::thread> threads;
    const auto before = static_cast<sqlite::SqliteStore&>(*rt->store).group_stats();
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < clients; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < each; ++i)
          (void)rt->memory->Remember({scope,
                                      "fact",
                                      "direct " + std::to_string(t) + " entry " + std::to_string(i),
                                      "",
                                      "bench",
                                      {}});
      });
    for (auto& th : threads) th.join();
    const auto after = static_cast<sqlite::SqliteStore&>(*rt->store).group_stats();
    direct_rate = total / (MillisSince(start) / 1000);
    direct_batch = static_cast<double>(after.writes - before.writes) /
                   static_cast<double>(std::max<uint64_t>(1, after.commits - before.commits));
  }

  HttpOptions http;
  http.port = 0;
  http.connections.max_connections = static_cast<size_t>(http_threads);
  HttpServer server(rt->services(), http);
  if (!server.Bind().ok()) return 1;
  std::thread serving([&] { (void)server.Serve(); });
  const int port = server.port();
  auto remember = [&](httplib::Client& c, const std::string& text) {
    auto res = c.Post("/v1/memory/remember",
                      nlohmann::json{{"scope_id", scope}, {"kind", "fact"}, {"text", text}}.dump(),
                      "application/json");
    return res && res->status == 200;
  };

  std::vector<double> one;
  {
    httplib::Client c("127.0.0.1", port);
    c.set_tcp_nodelay(true);
    c.set_keep_alive(true);
    for (int i = 0; i < requests; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      if (!remember(c, "one client entry " + std::to_string(i))) return 1;
      one.push_back(MillisSince(t0));
    }
  }

  // `clients` keep-alive clients at once, each sending `each` requests (request(client, t, i)):
  // the requests a second.
  auto at_once = [&](auto request) {
    std::vector<std::thread> ts;
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < clients; ++t)
      ts.emplace_back([&, t] {
        httplib::Client c("127.0.0.1", port);
        c.set_tcp_nodelay(true);
        c.set_keep_alive(true);
        for (int i = 0; i < each; ++i) request(c, t, i);
      });
    for (auto& th : ts) th.join();
    return total / (MillisSince(t0) / 1000);
  };

  // The transport's own ceiling, same clients and server: requests that reach no store. A
  // liveness probe (routing, no body), and a remember the validator refuses (routing, auth, the
  // body parsed, a 422 answered). A remember/s can never be above these.
  std::atomic<int> unexpected{0};
  const double live_rate = at_once([&](httplib::Client& c, int, int) {
    auto res = c.Get("/health/live");
    if (!res || res->status != 200) ++unexpected;
  });
  const double refused_rate = at_once([&](httplib::Client& c, int, int) {
    auto res = c.Post("/v1/memory/remember",
                      nlohmann::json{{"scope_id", scope}, {"kind", "fact"}, {"text", ""}}.dump(),
                      "application/json");
    if (!res || res->status != 422) ++unexpected;
  });
  if (unexpected) {
    std::fprintf(stderr, "http_bench: %d probes or refusals got another answer\n",
                 unexpected.load());
    server.Stop();
    serving.join();
    return 1;
  }

  std::atomic<int> failures{0};
  const auto before = static_cast<sqlite::SqliteStore&>(*rt->store).group_stats();
  const double rate = at_once([&](httplib::Client& c, int t, int i) {
    if (!remember(c, "client " + std::to_string(t) + " entry " + std::to_string(i))) ++failures;
  });
  const auto after = static_cast<sqlite::SqliteStore&>(*rt->store).group_stats();
  server.Stop();
  serving.join();

  std::printf("| | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|\n");
  std::printf("| bare commit (MemoryService::Remember, in process) | %.3f | %.3f | %.3f |\n",
              Percentile(floor, 0.5), Percentile(floor, 0.95), Percentile(floor, 0.99));
  std::printf("| remember over HTTP, 1 client, keep-alive | %.3f | %.3f | %.3f |\n",
              Percentile(one, 0.5), Percentile(one, 0.95), Percentile(one, 0.99));
  std::printf("ratio HTTP / bare commit (p50): %.2f\n",
              Percentile(one, 0.5) / Percentile(floor, 0.5));
  std::printf("%d threads in process (no HTTP): %.0f remembers/s; %.1f writes per commit\n",
              clients, direct_rate, direct_batch);
  std::printf("%d clients, no store: %.0f liveness probes/s; %.0f refused remembers/s\n", clients,
              live_rate, refused_rate);
  std::printf(
      "%d clients: %d remembers in %.2f s = %.0f remembers/s (%d failed); %.1f writes per commit\n",
      clients, total, total / rate, rate, failures.load(),
      static_cast<double>(after.writes - before.writes) /
          static_cast<double>(std::max<uint64_t>(1, after.commits - before.commits)));
  rt.reset();
  std::filesystem::remove_all(dir);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  int requests = 2000, clients = 16;
  std::string durability = "full";
  int threads = static_cast<int>(pc::HttpOptions{}.connections.max_connections);
  if (!pc::ParseFlags(argc, argv,
                      {{"--requests", &requests},
                       {"--clients", &clients},
                       {"--durability", &durability},
                       {"--http-threads", &threads}},
                      "usage: http_bench [--requests 2000] [--clients 16] [--durability "
                      "full|normal] [--http-threads 64]\n"))
    return 2;
  if (durability != "full" && durability != "normal") {
    std::fprintf(stderr, "http_bench: --durability must be full or normal\n");
    return 2;
  }
  if (threads < 1) {
    std::fprintf(stderr, "http_bench: --http-threads must be at least 1\n");
    return 2;
  }
  return pc::Run(requests, clients, durability, threads);
}
