// The core loop against memory size, over HTTP (issue 28): remember/s and search latency at
// 1k, 10k, 100k (and 1M) entries in one scope, with the default settings.
//
//   build/bench/scale_bench [--sizes 1000,10000,100000] [--clients 4] [--requests 2000]
//                           [--queries 2000] [--store postgresql://…] [--json FILE]
//                           [--reconcile warn|off|reject] [--embed hash|none]
//
// For each size a fresh store (SQLite in a temp dir, or with --store a fresh schema on that
// PostgreSQL database) is filled in bulk (testing/bulk_fill.h: the store's own commit path, 1,000
// adds per revision, FTS rows and vectors) with statements of 8–12 words from one 30-word
// vocabulary, as a project's memory repeats its words (commit_bench's BM_RememberCommonWords).
// Then a real HttpServer (the routes, thread pool and defaults of `powercontext serve`: reconcile
// `warn`, durable commits; embed_provider `hash` so that vector and hybrid have vectors) answers
// `--clients` keep-alive clients:
//   remember   new statements of the same vocabulary (`--requests` in all): remember/s, p50, p99;
//   fts        3 words of the vocabulary (`--queries` in all): p50, p99;
//   vector, hybrid   the same queries in those modes.
// Searches run after the remembers, so the graph and vector index have caught up with writes
// made over HTTP too. Deterministic texts (fixed seeds); medians come from running it again.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/http_server.h"
#include "app/config.h"
#include "app/runtime.h"
#include "bench_util.h"
#include "bulk_fill.h"
#include "pg_scratch.h"

namespace pc {
namespace {

const char* kWords[] = {"the",      "importer", "orders", "amounts",   "cents",  "tests",    "run",    "after",
                        "schema",   "migration", "csv",   "line",      "number", "rows",     "rejects", "decimal",
                        "integer",  "validator", "client", "server",   "deploy", "before",   "contract", "checked",
                        "build",    "release",  "notes",  "config",    "cache",  "index"};

uint64_t Mix(uint64_t& x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

// Statement i: 8–12 words of the vocabulary; query i: 3 of them.
std::string Statement(int64_t i) {
  uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull + 1;
  const int n = 8 + static_cast<int>(Mix(x) % 5);
  std::string out;
  for (int w = 0; w < n; ++w) out += std::string(w ? " " : "") + kWords[Mix(x) % 30];
  return out;
}

std::string Query(int64_t i) {
  uint64_t x = static_cast<uint64_t>(i) * 0xD1B54A32D192ED03ull + 7;
  std::string out;
  for (int w = 0; w < 3; ++w) out += std::string(w ? " " : "") + kWords[1 + Mix(x) % 29];
  return out;
}

struct Phase {
  std::vector<double> ms;
  double seconds = 0;
  int failed = 0;
  nlohmann::json Json() const {
    return {{"per_second", seconds > 0 ? static_cast<double>(ms.size()) / seconds : 0},
            {"p50", Percentile(ms, 0.50)},
            {"p99", Percentile(ms, 0.99)},
            {"failed", failed}};
  }
};

// `total` requests over `clients` keep-alive clients; `send(client, i)` is one request.
Phase Drive(int port, int clients, int total, const std::function<bool(httplib::Client&, int)>& send) {
  Phase out;
  std::vector<std::vector<double>> per(static_cast<size_t>(clients));
  std::atomic<int> next{0}, failed{0};
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < clients; ++t)
    threads.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port);
      c.set_tcp_nodelay(true);
      c.set_keep_alive(true);
      for (int i = next++; i < total; i = next++) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!send(c, i)) ++failed;
        per[static_cast<size_t>(t)].push_back(MillisSince(t0));
      }
    });
  for (auto& th : threads) th.join();
  out.seconds = MillisSince(start) / 1000;
  for (auto& v : per) out.ms.insert(out.ms.end(), v.begin(), v.end());
  out.failed = failed;
  return out;
}

nlohmann::json Run(int64_t entries, int clients, int requests, int queries, const std::string& store_base,
                   const std::string& reconcile, const std::string& embed) {
  const std::string dir = ScratchDir("pcscale");
  std::unique_ptr<PgScratchSchema> schema;
  Config config;
  config.data_dir = dir;
  config.embed_provider = embed;
  config.reconcile = reconcile;
  if (!store_base.empty()) {
    schema = std::make_unique<PgScratchSchema>(store_base);
    config.store = schema->url();
  }
  auto built = BuildRuntime(config);
  if (!built.ok()) {
    std::fprintf(stderr, "scale_bench: %s\n", built.status().ToString().c_str());
    std::exit(1);
  }
  auto rt = std::move(built).value();
  Scope scope = rt->memory->CreateScope("bench").value().scope;
  HashEmbedder embedder;
  const auto fill_start = std::chrono::steady_clock::now();
  if (!FillMemory(*rt->store, scope, entries, Statement, embed == "hash" ? &embedder : nullptr).ok()) {
    std::fprintf(stderr, "scale_bench: the bulk fill failed\n");
    std::exit(1);
  }
  if (schema && !schema->Analyze().ok()) std::fprintf(stderr, "scale_bench: ANALYZE failed\n");
  const double fill_s = MillisSince(fill_start) / 1000;

  HttpOptions http;
  http.port = 0;
  http.access_log = AccessLog::kOff;
  HttpServer server(rt->services(), http);
  if (!server.Bind().ok()) std::exit(1);
  std::thread serving([&] { (void)server.Serve(); });
  const int port = server.port();
  const std::string scope_id = scope.scope_id;

  Phase remember = Drive(port, clients, requests, [&](httplib::Client& c, int i) {
    auto res = c.Post("/v1/memory/remember",
                      nlohmann::json{{"scope_id", scope_id}, {"kind", "fact"}, {"text", Statement(entries + 1000000 + i)}}
                          .dump(),
                      "application/json");
    return res && res->status == 200;
  });
  auto search = [&](const char* mode) {
    return Drive(port, clients, queries, [&, mode](httplib::Client& c, int i) {
      auto res = c.Post("/v1/memory/search",
                        nlohmann::json{{"scope_id", scope_id}, {"query", Query(i)}, {"mode", mode}, {"limit", 10}}.dump(),
                        "application/json");
      return res && res->status == 200;
    });
  };
  Phase fts = search("fts");
  Phase vector = search("vector");
  Phase hybrid = search("hybrid");
  server.Stop();
  serving.join();
  nlohmann::json out{{"entries", entries},
                     {"store", store_base.empty() ? "sqlite" : "postgresql"},
                     {"clients", clients},
                     {"fill_seconds", fill_s},
                     {"remember", remember.Json()},
                     {"fts", fts.Json()},
                     {"vector", vector.Json()},
                     {"hybrid", hybrid.Json()}};
  std::printf("| %s | %lld | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
              out["store"].get<std::string>().c_str(), static_cast<long long>(entries),
              out["remember"]["per_second"].get<double>(), Percentile(remember.ms, 0.5), Percentile(remember.ms, 0.99),
              Percentile(fts.ms, 0.5), Percentile(fts.ms, 0.99), Percentile(vector.ms, 0.5), Percentile(vector.ms, 0.99),
              Percentile(hybrid.ms, 0.5), Percentile(hybrid.ms, 0.99));
  std::fflush(stdout);
  if (remember.failed || fts.failed || vector.failed || hybrid.failed)
    std::fprintf(stderr, "scale_bench: failed requests: remember %d, fts %d, vector %d, hybrid %d\n", remember.failed,
                 fts.failed, vector.failed, hybrid.failed);
  rt.reset();
  std::filesystem::remove_all(dir);
  return out;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {1000, 10000, 100000};
  int clients = 4, requests = 2000, queries = 2000;
  std::string store, json_path, reconcile = "warn", embed = "hash";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::string list = argv[++i];
      for (size_t at = 0; at <= list.size();) {
        size_t comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        sizes.push_back(std::stoll(list.substr(at, comma - at)));
        at = comma + 1;
      }
    } else if (a == "--clients" && i + 1 < argc) {
      clients = std::stoi(argv[++i]);
    } else if (a == "--requests" && i + 1 < argc) {
      requests = std::stoi(argv[++i]);
    } else if (a == "--queries" && i + 1 < argc) {
      queries = std::stoi(argv[++i]);
    } else if (a == "--store" && i + 1 < argc) {
      store = argv[++i];
    } else if (a == "--reconcile" && i + 1 < argc) {
      reconcile = argv[++i];
    } else if (a == "--embed" && i + 1 < argc) {
      embed = argv[++i];
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: scale_bench [--sizes 1000,10000,100000] [--clients 4] [--requests 2000] [--queries 2000]"
                   " [--store postgresql://…] [--reconcile warn|off|reject] [--embed hash|none] [--json FILE]\n");
      return 2;
    }
  }
  if (clients < 1 || requests < 1 || queries < 1) {
    std::fprintf(stderr, "scale_bench: --clients, --requests and --queries must be at least 1\n");
    return 2;
  }
  std::printf("| store | entries | remember/s | remember p50 ms | p99 | fts p50 ms | p99 | vector p50 ms | p99 |"
              " hybrid p50 ms | p99 |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  nlohmann::json all = nlohmann::json::array();
  for (int64_t n : sizes) all.push_back(pc::Run(n, clients, requests, queries, store, reconcile, embed));
  if (!json_path.empty()) std::ofstream(json_path) << all.dump(2) << "\n";
  return 0;
}
