// The core loop against memory size, over HTTP (issue 28): remember/s and search latency at
// 1k, 10k, 100k and 1M entries in one scope, with the default settings.
//
//   build/bench/scale_bench [--sizes 1000,10000,100000] [--clients 4] [--requests 2000]
//                           [--queries 2000] [--store postgresql://…] [--json FILE]
//                           [--reconcile warn|off|reject] [--embed hash|none]
//                           [--load fill|api] [--load-reconcile off|warn|reject] [--server BIN]
//                           [--keep]
//
// For each size a fresh store (SQLite in a temp dir, or with --store a fresh schema on that
// PostgreSQL database) is filled with statements of 8–12 words from one 30-word vocabulary, as a
// project's memory repeats its words (commit_bench's BM_RememberCommonWords):
//   --load fill (the default): in bulk through the store's own commit path (testing/bulk_fill.h,
//     1,000 adds per revision, FTS rows and vectors), no gates;
//   --load api: through the product, POST /v1/memory/remember/batch over HTTP, 1,000 entries a
//     batch from `--clients` clients, each entry validated, embedded and gated as a remember
//     (one revision per batch): entries/s of the load. --load-reconcile MODE sets the scope's
//     reconcile setting to MODE for the load (PUT /v1/scopes/{id}/settings, as an operator would
//     for an import) and clears it after, so the phases below run with the server's default.
// Then a real HttpServer (the routes, thread pool and defaults of `powercontext serve`: reconcile
// `warn`, durable commits; embed_provider `hash` so that vector and hybrid have vectors) answers
// `--clients` keep-alive clients:
//   remember   new statements of the same vocabulary (`--requests` in all): remember/s, p50, p99;
//   fts        3 words of the vocabulary (`--queries` in all): p50, p99;
//   vector, hybrid   the same queries in those modes, at once (exact scan while the graph builds);
//   graph      the time to load the vectors and build the approximate graph (a memory of 5,000
//              vectors or more), then vector search through it, and hybrid beside fts (fts,
//              hybrid, fts, hybrid, each `--queries`; p50 of each pair pooled): their ratio;
//   mixed      remembers and fts searches at once, `--clients` of each (`--requests` and
//              `--queries`): a memory's everyday use, where every search begins after some commit.
// Then the restart: the server is stopped and `powercontext serve` (--server; by default the one
// next to bench/) started on the same data directory, as a user would: the time until
// /health/ready answers 200, its first vector search (loading the vectors and the saved graph),
// fts and vector p50/p99 through it, and its resident memory (VmRSS, VmHWM), also per million.
// --keep leaves each size's data directory in place (its path printed), to profile `serve` on it.
// Searches run after the remembers, so the graph and vector index have caught up with writes
// made over HTTP too. Deterministic texts (fixed seeds); medians come from running it again.
#include <httplib.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/http_server.h"
#include "app/config.h"
#include "app/runtime.h"
#include "bench_util.h"
#include "bulk_fill.h"
#include "pg_scratch.h"
#include "spawn_server.h"

namespace pc {
namespace {

const char* kWords[] = {"the",    "importer", "orders",  "amounts",   "cents",    "tests",
                        "run",    "after",    "schema",  "migration", "csv",      "line",
                        "number", "rows",     "rejects", "decimal",   "integer",  "validator",
                        "client", "server",   "deploy",  "before",    "contract", "checked",
                        "build",  "release",  "notes",   "config",    "cache",    "index"};

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
  void Add(const Phase& more) {
    ms.insert(ms.end(), more.ms.begin(), more.ms.end());
    seconds += more.seconds;
    failed += more.failed;
  }
  nlohmann::json Json() const {
    return {{"per_second", seconds > 0 ? static_cast<double>(ms.size()) / seconds : 0},
            {"p50", Percentile(ms, 0.50)},
            {"p99", Percentile(ms, 0.99)},
            {"failed", failed}};
  }
};

// `total` requests over `clients` keep-alive clients; `send(client, i)` is one request.
Phase Drive(int port, int clients, int total,
            const std::function<bool(httplib::Client&, int)>& send) {
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
      c.set_read_timeout(600,
                         0);  // a batch of 1,000 entries or a first vector search takes seconds
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

struct Options {
  int clients = 4, requests = 2000, queries = 2000;
  std::string store, reconcile = "warn", embed = "hash", load = "fill", server;
  bool keep = false;  // leave the data directory (for profiling `serve` on it after)
  std::string
      load_reconcile;  // the scope's reconcile setting during an api load ("": the server's)
};

constexpr int64_t kLoadBatch = 1000;  // entries per remember/batch request: the route's maximum

bool Ok(const httplib::Result& res, const char* what) {
  if (res && res->status == 200) return true;
  static std::atomic<int> told{0};
  if (told++ < 3)
    std::fprintf(
        stderr, "scale_bench: %s: %s\n", what,
        res ? (std::to_string(res->status) + " " + res->body.substr(0, 300)).c_str() : "no answer");
  return false;
}

// Sets (or with null clears) the scope's reconcile setting, as an operator would for an import.
void SetScopeReconcile(int port, const std::string& scope_id, const nlohmann::json& mode) {
  httplib::Client c("127.0.0.1", port);
  auto res = c.Put("/v1/scopes/" + scope_id + "/settings",
                   nlohmann::json{{"reconcile", mode}}.dump(), "application/json");
  if (!Ok(res, "settings")) std::exit(1);
}

// The load through the product: POST /v1/memory/remember/batch, kLoadBatch entries a request.
nlohmann::json LoadThroughApi(int port, const std::string& scope_id, int64_t entries,
                              const Options& o) {
  if (!o.load_reconcile.empty()) SetScopeReconcile(port, scope_id, o.load_reconcile);
  const int clients = o.clients;
  const int batches = static_cast<int>((entries + kLoadBatch - 1) / kLoadBatch);
  std::atomic<int64_t> added{0};
  Phase p = Drive(port, clients, batches, [&](httplib::Client& c, int b) {
    nlohmann::json items = nlohmann::json::array();
    const int64_t from = b * kLoadBatch, to = std::min(entries, from + kLoadBatch);
    for (int64_t i = from; i < to; ++i) items.push_back({{"kind", "fact"}, {"text", Statement(i)}});
    auto res = c.Post("/v1/memory/remember/batch",
                      nlohmann::json{{"scope_id", scope_id}, {"entries", items}}.dump(),
                      "application/json");
    if (!Ok(res, "remember/batch")) return false;
    auto body = nlohmann::json::parse(res->body, nullptr, false);
    if (!body.is_discarded())
      for (const auto& e : body["entries"]) added += e.value("changed", false) ? 1 : 0;
    return true;
  });
  if (!o.load_reconcile.empty())
    SetScopeReconcile(port, scope_id, nullptr);  // the server's default again
  return {{"mode", "api"},
          {"reconcile", o.load_reconcile.empty() ? o.reconcile : o.load_reconcile},
          {"seconds", p.seconds},
          {"per_second", entries / p.seconds},
          {"added", added.load()},
          {"batch_p50_ms", Percentile(p.ms, 0.5)},
          {"batch_p99_ms", Percentile(p.ms, 0.99)},
          {"failed", p.failed}};
}

nlohmann::json LoadInBulk(Runtime& rt, const Scope& scope, int64_t entries, bool vectors) {
  HashEmbedder embedder;
  const auto start = std::chrono::steady_clock::now();
  if (!FillMemory(*rt.store, scope, entries, Statement, vectors ? &embedder : nullptr).ok()) {
    std::fprintf(stderr, "scale_bench: the bulk fill failed\n");
    std::exit(1);
  }
  const double s = MillisSince(start) / 1000;
  return {{"mode", "fill"}, {"seconds", s}, {"per_second", entries / s}};
}

Phase Remembers(int port, const std::string& scope_id, int64_t entries, const Options& o) {
  return Drive(port, o.clients, o.requests, [&](httplib::Client& c, int i) {
    auto res = c.Post(
        "/v1/memory/remember",
        nlohmann::json{
            {"scope_id", scope_id}, {"kind", "fact"}, {"text", Statement(entries + 1000000 + i)}}
            .dump(),
        "application/json");
    return Ok(res, "remember");
  });
}

// `plain`: "feedback": false, full text as plain BM25 (the default re-ranks with feedback and
// neighbours, docs/quality.md).
Phase Searches(int port, const std::string& scope_id, const char* mode, const Options& o,
               bool plain = false) {
  return Drive(port, o.clients, o.queries, [&](httplib::Client& c, int i) {
    nlohmann::json body{{"scope_id", scope_id}, {"query", Query(i)}, {"mode", mode}, {"limit", 10}};
    if (plain) body["feedback"] = false;
    auto res = c.Post("/v1/memory/search", body.dump(), "application/json");
    return Ok(res, "search");
  });
}

// One vector search (the first loads the memory's vectors and queues its graph's build): its ms.
double OneVectorSearch(int port, const std::string& scope_id) {
  Options one;
  one.clients = one.queries = 1;
  Phase p = Searches(port, scope_id, "vector", one);
  return p.failed ? -1 : p.ms[0];
}

// A gauge of the server's /metrics (0 when absent).
double Gauge(httplib::Client& c, const std::string& name) {
  auto res = c.Get("/metrics");
  if (!res || res->status != 200) return 0;
  const size_t at = res->body.find("\n" + name + " ");
  return at == std::string::npos ? 0 : std::stod(res->body.substr(at + name.size() + 2));
}

// Polls `ready` every 5 ms for up to `limit_ms`: the ms until it held, or -1.
double MsUntil(std::chrono::steady_clock::time_point t0, double limit_ms,
               const std::function<bool()>& ready) {
  while (MillisSince(t0) < limit_ms) {
    if (ready()) return MillisSince(t0);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

// `powercontext serve` on the data directory the run filled, as a user restarts it: until
// /health/ready answers 200; its first vector search; until its saved graph is in use; fts and
// vector through it; its resident memory.
nlohmann::json Restart(const Options& o, const std::string& dir, const std::string& store_url,
                       const std::string& scope_id, int64_t entries) {
  std::vector<std::string> args = {o.server,           "serve", "--data",      dir,
                                   "--embed-provider", o.embed, "--reconcile", o.reconcile};
  if (!store_url.empty()) args.insert(args.end(), {"--store", store_url});
  const auto t0 = std::chrono::steady_clock::now();
  int port = 0;
  const pid_t pid = SpawnServer(args, port, 120000);
  if (pid <= 0) {
    std::fprintf(stderr, "scale_bench: the restarted server did not answer\n");
    std::exit(1);
  }
  nlohmann::json out;
  out["ready_ms"] = MillisSince(t0);
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(0, 100000);
  c.set_read_timeout(600, 0);
  if (o.embed == "hash") {
    out["first_vector_ms"] = OneVectorSearch(port, scope_id);
    const auto t1 = std::chrono::steady_clock::now();
    if (entries >= static_cast<int64_t>(kAnnMinRows))
      out["graph_in_use_ms"] =
          MsUntil(t1, 600000, [&] { return Gauge(c, "powercontext_vector_graphs_loaded") >= 1; });
  }
  Phase fts = Searches(port, scope_id, "fts", o), vector = Searches(port, scope_id, "vector", o);
  out["fts"] = fts.Json();
  out["vector"] = vector.Json();
  auto [rss, hwm] = ResidentKb(pid);
  out["rss_mb"] = static_cast<double>(rss) / 1024;
  out["peak_rss_mb"] = static_cast<double>(hwm) / 1024;
  out["rss_mb_per_million"] = out["rss_mb"].get<double>() * 1e6 / static_cast<double>(entries);
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  return out;
}

// The in-process server's phases: remember, then searches, then the graph and search through it.
nlohmann::json Phases(Runtime& rt, int port, const std::string& scope_id, int64_t entries,
                      const Options& o) {
  nlohmann::json out;
  Phase remember = Remembers(port, scope_id, entries, o);
  Phase fts = Searches(port, scope_id, "fts", o);
  Phase fts_plain = Searches(port, scope_id, "fts", o, true);
  const auto warm = std::chrono::steady_clock::now();
  out["vectors_load_ms"] = o.embed == "hash" ? OneVectorSearch(port, scope_id) : 0;
  Phase vector = Searches(port, scope_id, "vector", o);
  Phase hybrid = Searches(port, scope_id, "hybrid", o);
  rt.search->vector_cache().WaitForBuilds();
  out["graph_ready_s"] = MillisSince(warm) / 1000;  // from the first vector search: load + build
  out["graphs"] = rt.search->vector_cache().stats().graphs;
  Phase graph = Searches(port, scope_id, "vector", o);
  // Hybrid beside its baseline: fts, hybrid, fts, hybrid, so that both see the same machine (on
  // a shared one, fts measured a minute earlier moved their ratio by ±0.1).
  Phase fts_graph = Searches(port, scope_id, "fts", o);
  Phase hybrid_graph = Searches(port, scope_id, "hybrid", o);
  fts_graph.Add(Searches(port, scope_id, "fts", o));
  hybrid_graph.Add(Searches(port, scope_id, "hybrid", o));
  // Writes and searches at once (new statements, after those of the remember phase).
  Phase mixed_remember;
  std::thread writer([&] { mixed_remember = Remembers(port, scope_id, entries + o.requests, o); });
  Phase mixed_fts = Searches(port, scope_id, "fts", o);
  writer.join();
  out["mixed_remember"] = mixed_remember.Json();
  out["mixed_fts"] = mixed_fts.Json();
  out["remember"] = remember.Json();
  out["fts"] = fts.Json();
  out["fts_plain"] = fts_plain.Json();
  out["vector"] = vector.Json();
  out["hybrid"] = hybrid.Json();
  out["vector_graph"] = graph.Json();
  out["fts_graph"] = fts_graph.Json();
  out["hybrid_graph"] = hybrid_graph.Json();
  const int failed = remember.failed + fts.failed + fts_plain.failed + vector.failed +
                     hybrid.failed + graph.failed + fts_graph.failed + hybrid_graph.failed +
                     mixed_remember.failed + mixed_fts.failed;
  if (failed) std::fprintf(stderr, "scale_bench: %d failed requests\n", failed);
  return out;
}

void PrintRow(const nlohmann::json& r) {
  auto f = [&](const char* phase, const char* key) { return r[phase][key].get<double>(); };
  std::printf(
      "| %s | %lld | %s %.0f/s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
      "%.2f | %.2f |\n",
      r["store"].get<std::string>().c_str(), static_cast<long long>(r["entries"].get<int64_t>()),
      r["load"]["mode"].get<std::string>().c_str(), f("load", "per_second"),
      f("remember", "per_second"), f("remember", "p50"), f("remember", "p99"), f("fts", "p50"),
      f("fts", "p99"), f("vector", "p50"), f("vector", "p99"), f("hybrid", "p50"),
      f("hybrid", "p99"), f("vector_graph", "p50"), f("vector_graph", "p99"));
  if (r.contains("fts_plain"))
    std::printf("    fts as plain BM25 (feedback: false) p50/p99 %.2f/%.2f ms\n",
                f("fts_plain", "p50"), f("fts_plain", "p99"));
  if (r.contains("fts_graph"))
    std::printf(
        "    hybrid through the graph p50/p99 %.2f/%.2f ms beside fts %.2f/%.2f ms: %.2f× fts "
        "p50\n",
        f("hybrid_graph", "p50"), f("hybrid_graph", "p99"), f("fts_graph", "p50"),
        f("fts_graph", "p99"), f("hybrid_graph", "p50") / f("fts_graph", "p50"));
  if (r.contains("mixed_fts"))
    std::printf(
        "    mixed: fts p50/p99 %.2f/%.2f ms while %.0f remember/s (p50/p99 %.2f/%.2f ms)\n",
        f("mixed_fts", "p50"), f("mixed_fts", "p99"), f("mixed_remember", "per_second"),
        f("mixed_remember", "p50"), f("mixed_remember", "p99"));
  if (r.contains("restart")) {
    const auto& s = r["restart"];
    std::printf(
        "    graph ready %.1f s after the first vector search (%.0f ms, %lld graphs); restart: "
        "ready %.0f ms, "
        "first vector %.0f ms, graph in use %.0f ms; fts p50/p99 %.2f/%.2f ms, vector %.2f/%.2f "
        "ms; "
        "RSS %.0f MB (peak %.0f), %.0f MB per million entries\n",
        r["graph_ready_s"].get<double>(), r["vectors_load_ms"].get<double>(),
        static_cast<long long>(r["graphs"].get<int64_t>()), s["ready_ms"].get<double>(),
        s.value("first_vector_ms", 0.0), s.value("graph_in_use_ms", 0.0),
        s["fts"]["p50"].get<double>(), s["fts"]["p99"].get<double>(),
        s["vector"]["p50"].get<double>(), s["vector"]["p99"].get<double>(),
        s["rss_mb"].get<double>(), s["peak_rss_mb"].get<double>(),
        s["rss_mb_per_million"].get<double>());
  }
  std::fflush(stdout);
}

nlohmann::json Run(int64_t entries, const Options& o) {
  const std::string dir = ScratchDir("pcscale");
  std::unique_ptr<PgScratchSchema> schema;
  Config config;
  config.data_dir = dir;
  config.embed_provider = o.embed;
  config.reconcile = o.reconcile;
  if (!o.store.empty()) {
    schema = std::make_unique<PgScratchSchema>(o.store);
    config.store = schema->url();
  }
  auto built = BuildRuntime(config);
  if (!built.ok()) {
    std::fprintf(stderr, "scale_bench: %s\n", built.status().ToString().c_str());
    std::exit(1);
  }
  auto rt = std::move(built).value();
  Scope scope = rt->memory->CreateScope("bench").value().scope;
  HttpOptions http;
  http.port = 0;
  http.access_log = AccessLog::kOff;
  HttpServer server(rt->services(), http);
  if (!server.Bind().ok()) std::exit(1);
  std::thread serving([&] { (void)server.Serve(); });
  nlohmann::json out{{"entries", entries},
                     {"store", o.store.empty() ? "sqlite" : "postgresql"},
                     {"clients", o.clients}};
  out["load"] = o.load == "api" ? LoadThroughApi(server.port(), scope.scope_id, entries, o)
                                : LoadInBulk(*rt, scope, entries, o.embed == "hash");
  out["fill_seconds"] = out["load"]["seconds"];
  // What autovacuum would have done by now for tables grown by writes (a load outpaces it).
  if (schema && !schema->VacuumAnalyze().ok())
    std::fprintf(stderr, "scale_bench: VACUUM (ANALYZE) failed\n");
  out.update(Phases(*rt, server.port(), scope.scope_id, entries, o));
  server.Stop();
  serving.join();
  rt.reset();
  if (!o.server.empty())
    out["restart"] = Restart(o, dir, schema ? schema->url() : "", scope.scope_id, entries);
  PrintRow(out);
  if (o.keep)
    std::printf("    kept %s (scope %s)\n", dir.c_str(), scope.scope_id.c_str());
  else
    std::filesystem::remove_all(dir);
  return out;
}

std::vector<int64_t> ParseSizes(const std::string& list) {
  std::vector<int64_t> sizes;
  for (size_t at = 0; at <= list.size();) {
    size_t comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    sizes.push_back(std::stoll(list.substr(at, comma - at)));
    at = comma + 1;
  }
  return sizes;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {1000, 10000, 100000};
  pc::Options o;
  std::string json_path;
  {  // powercontext next to the bench directory, as scripts/build lays them out
    std::filesystem::path self =
        std::filesystem::canonical("/proc/self/exe").parent_path().parent_path() / "powercontext";
    if (std::filesystem::exists(self)) o.server = self.string();
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool value = i + 1 < argc;
    if (a == "--sizes" && value)
      sizes = pc::ParseSizes(argv[++i]);
    else if (a == "--clients" && value)
      o.clients = std::stoi(argv[++i]);
    else if (a == "--requests" && value)
      o.requests = std::stoi(argv[++i]);
    else if (a == "--queries" && value)
      o.queries = std::stoi(argv[++i]);
    else if (a == "--store" && value)
      o.store = argv[++i];
    else if (a == "--reconcile" && value)
      o.reconcile = argv[++i];
    else if (a == "--embed" && value)
      o.embed = argv[++i];
    else if (a == "--load" && value)
      o.load = argv[++i];
    else if (a == "--load-reconcile" && value)
      o.load_reconcile = argv[++i];
    else if (a == "--keep")
      o.keep = true;
    else if (a == "--server" && value)
      o.server = argv[++i];  // "" skips the restart
    else if (a == "--json" && value)
      json_path = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: scale_bench [--sizes 1000,10000,100000] [--clients 4] [--requests 2000] "
                   "[--queries 2000]"
                   " [--store postgresql://…] [--reconcile warn|off|reject] [--embed hash|none] "
                   "[--load fill|api]"
                   " [--load-reconcile off|warn|reject] [--keep]"
                   " [--server BIN] [--json FILE]\n");
      return 2;
    }
  }
  if (o.clients < 1 || o.requests < 1 || o.queries < 1 || (o.load != "fill" && o.load != "api")) {
    std::fprintf(stderr,
                 "scale_bench: --clients, --requests and --queries must be at least 1; --load fill "
                 "or api\n");
    return 2;
  }
  std::printf(
      "| store | entries | load | remember/s | remember p50 ms | p99 | fts p50 ms | p99 | vector "
      "p50 ms | p99 |"
      " hybrid p50 ms | p99 | vector (graph) p50 ms | p99 "
      "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  nlohmann::json all = nlohmann::json::array();
  for (int64_t n : sizes) {
    all.push_back(pc::Run(n, o));
    if (!json_path.empty())
      std::ofstream(json_path) << all.dump(2) << "\n";  // each size as it ends
  }
  return 0;
}
