// Search latency against memory size, in process (no HTTP): p50/p95/p99 per mode.
//
//   build/bench/search_bench [--entries 10000,100000] [--sources 10000] [--queries 300]
//                            [--modes fts,vector,hybrid,long,prepare,concurrent] [--json FILE]
//                            [--server BIN]
//                            [--store postgresql://…] [--fill-batch 1000]
//
// Each size gets a fresh SQLite store in a temp dir (or, with --store, a fresh schema on that
// PostgreSQL database, dropped afterwards), filled through the store's commit path (1,000
// adds per revision, or --fill-batch N: 1 writes one revision per entry as remembers do, so that
// full text's neighbour propagation has neighbours to lend to, with FTS rows and hash-embedder
// vectors, as the write path makes them) with synthetic text: words drawn from a Zipf distribution
// over a 20,000-word vocabulary, a third of the entries Chinese. Queries are 3 words from the same
// distribution; mode `long` runs fts and hybrid with sentence-length queries (two entries' worth of
// text, half Chinese). Deterministic (fixed seed).
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "bulk_fill.h"
#include "pg_scratch.h"
#include "search/hash_embedder.h"
#include "service/context/context_service.h"
#include "service/flush/source_service.h"
#include "service/memory/memory_service.h"
#include "service/search/search_service.h"
#include "spawn_server.h"
#include "store/postgres/pg_store.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

nlohmann::json g_results = nlohmann::json::array();  // one object per size, for --json

nlohmann::json Latency(const std::vector<double>& ms) {
  return {
      {"p50", Percentile(ms, 0.50)}, {"p95", Percentile(ms, 0.95)}, {"p99", Percentile(ms, 0.99)}};
}

int64_t DirectoryBytes(const std::string& dir) {
  int64_t total = 0;
  std::error_code ec;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir, ec))
    if (f.is_regular_file(ec)) total += static_cast<int64_t>(f.file_size(ec));
  return total;
}

// `powercontext serve` on the filled data directory, as a user would start it: how long until it
// answers, its first searches, and its resident memory once the memory's vectors are loaded.
// On PostgreSQL (`store_url` set) this is a server joining the others: `dir` is its own empty
// cache directory, so it loads the memory's vectors from the database and has no saved graph.
nlohmann::json ServerStartup(const std::string& binary, const std::string& dir,
                             const std::string& scope_id, const std::string& query, bool vectors,
                             const std::string& store_url) {
  std::vector<std::string> args = {binary, "serve", "--data", dir};
  if (!store_url.empty()) args.insert(args.end(), {"--store", store_url});
  if (vectors) args.insert(args.end(), {"--embed-provider", "hash"});
  auto t0 = std::chrono::steady_clock::now();
  int port = 0;
  const pid_t pid = SpawnServer(args, port, 600000, "/v1/health");
  nlohmann::json out;
  if (pid <= 0) {
    std::printf("server did not start\n");
    return out;
  }
  out["ready_ms"] = MillisSince(t0);
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(0, 100000);
  client.set_read_timeout(600, 0);
  auto search = [&](const char* mode) {
    auto q0 = std::chrono::steady_clock::now();
    auto res = client.Post(
        "/v1/memory/search",
        nlohmann::json{{"scope_id", scope_id}, {"query", query}, {"mode", mode}, {"limit", 10}}
            .dump(),
        "application/json");
    return res && res->status == 200 ? MillisSince(q0) : -1.0;
  };
  out["first_fts_ms"] = search("fts");
  if (vectors) out["first_hybrid_ms"] = search("hybrid");  // waits for the vectors if still loading
  out["first_searches_done_ms"] = MillisSince(t0);
  auto [rss, hwm] = ResidentKb(pid);
  out["rss_mb"] = static_cast<double>(rss) / 1024;
  out["peak_rss_mb"] = static_cast<double>(hwm) / 1024;
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::printf(
      "server start-up: answering after %.0f ms; first fts search %.1f ms%s; resident %.0f MB "
      "(peak %.0f MB)\n",
      out["ready_ms"].get<double>(), out["first_fts_ms"].get<double>(),
      vectors ? (", first hybrid " +
                 std::to_string(static_cast<int>(out["first_hybrid_ms"].get<double>())) + " ms")
                    .c_str()
              : "",
      out["rss_mb"].get<double>(), out["peak_rss_mb"].get<double>());
  return out;
}

constexpr int kVocabulary = 20000;
constexpr const char* kSyllables[] = {"ka", "to", "ri", "ne", "mo", "sa", "lu", "vi", "de", "po",
                                      "an", "el", "or", "un", "is", "qu", "ze", "bo", "fi", "ga"};
constexpr const char* kHan =
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子"
    "说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机"
    "当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心"
    "反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程"
    "展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期"
    "根论运农指几九区强放决西被干做必战先回则任取据处府";

struct Corpus {
  std::mt19937_64 rng{42};
  std::vector<std::string> words;
  std::vector<std::string> han;
  std::vector<double> cdf;

  Corpus() {
    for (int i = 0; i < kVocabulary; ++i) {
      std::string w;
      int n = i;
      do {
        w += kSyllables[n % 20];
        n /= 20;
      } while (n > 0);
      words.push_back(w);
    }
    std::string all = kHan;
    for (size_t i = 0; i + 3 <= all.size(); i += 3) han.push_back(all.substr(i, 3));
    double sum = 0;
    for (int i = 1; i <= kVocabulary; ++i) cdf.push_back(sum += 1.0 / i);  // Zipf, s = 1
    for (double& c : cdf) c /= sum;
  }
  size_t Zipf() {
    double u = std::uniform_real_distribution<double>(0, 1)(rng);
    return static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
  }
  std::string Entry(bool chinese) {
    std::string out;
    int n = 8 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      if (chinese)
        out += han[Zipf() % han.size()] + han[rng() % han.size()];
      else
        out += (i ? " " : "") + words[Zipf()];
    }
    return out;
  }
  std::string Query() { return words[Zipf()] + " " + words[Zipf()] + " " + words[Zipf()]; }
  // A sentence-length query (a task description, a dialogue turn): two entries' worth of text.
  std::string LongQuery(bool chinese) { return Entry(chinese) + " " + Entry(chinese); }
};

// Whether the comma-separated `modes` has `word`.
bool Selected(const std::string& modes, const std::string& word) {
  return ("," + modes + ",").find("," + word + ",") != std::string::npos;
}

int g_fill_batch = 1000;  // --fill-batch

void Run(int64_t entries, int64_t source_count, int queries, const std::string& modes,
         const std::string& server_binary, const std::string& store_base) {
  nlohmann::json result = {{"entries", entries},
                           {"sources", source_count},
                           {"queries", queries},
                           {"store", store_base.empty() ? "sqlite" : "postgresql"}};
  std::string dir = ScratchDir("pcsearch");
  std::unique_ptr<PgScratchSchema> schema;
  std::unique_ptr<Store> store;
  if (store_base.empty()) {
    sqlite::SqliteOptions o;
    o.data_dir = dir;
    store = std::move(sqlite::SqliteStore::Open(o)).value();
  } else {
    schema = std::make_unique<PgScratchSchema>(store_base);
    pg::PgOptions o;
    o.url = schema->url();
    auto opened = pg::PgStore::Open(o);
    if (!opened.ok()) {
      std::fprintf(stderr, "search_bench: %s\n", opened.status().ToString().c_str());
      std::exit(1);
    }
    store = std::move(opened).value();
  }
  HashEmbedder embedder;
  MemoryService memory(*store, ServiceLimits{}, &embedder);
  VectorCacheOptions graph_options;
  graph_options.ann_dir = dir + "/ann";
  auto search = std::make_unique<SearchService>(*store, &embedder, nullptr, graph_options);
  VectorCacheOptions exact_options;
  exact_options.ann_min_rows = SIZE_MAX;
  auto exact = std::make_unique<SearchService>(*store, &embedder, nullptr, exact_options);
  Scope scope = memory.CreateScope("bench").value().scope;
  Corpus corpus;

  auto fill_start = std::chrono::steady_clock::now();
  if (!FillMemory(
           *store, scope, entries, [&](int64_t i) { return corpus.Entry(i % 3 == 2); }, &embedder,
           g_fill_batch)
           .ok())
    std::abort();
  double fill_s = MillisSince(fill_start) / 1000;
  std::printf("\n%lld entries (filled in %.1f s, %.0f entries/s)\n",
              static_cast<long long>(entries), fill_s, static_cast<double>(entries) / fill_s);
  result["fill_s"] = fill_s;
  const bool vectors = Selected(modes, "vector") || Selected(modes, "hybrid");
  if (vectors) {
    // The first vector search loads the memory's vectors and queues the graph build.
    auto t0 = std::chrono::steady_clock::now();
    if (!search->WarmVectors(scope.scope_id).ok()) std::abort();
    std::printf("vectors loaded in %.0f ms\n", MillisSince(t0));
    t0 = std::chrono::steady_clock::now();
    search->vector_cache().WaitForBuilds();
    auto st = search->vector_cache().stats();
    if (st.graphs) std::printf("graph built in the background in %.1f s\n", MillisSince(t0) / 1000);
    if (st.graphs)
      result["graph_build_s"] = MillisSince(t0) / 1000;
    else
      std::printf("no graph (below %zu vectors): exact scan\n", kAnnMinRows);
    if (!exact->WarmVectors(scope.scope_id).ok()) std::abort();
  }
  std::vector<std::string> qs, long_qs;
  for (int i = 0; i < queries; ++i) qs.push_back(corpus.Query());
  for (int i = 0; i < queries; ++i) long_qs.push_back(corpus.LongQuery(i % 2 == 1));
  // The graph's recall: the share of the exact top 10 it finds, where a hit exactly as similar as
  // the exact 10th counts too (hash vectors tie often, and ties are broken by version id).
  double found = 0, wanted = 0;
  for (const std::string& q : qs) {
    if (!Selected(modes, "vector")) break;
    auto a = search->Search({scope.scope_id, q, SearchMode::kVector, 10, false, std::nullopt});
    auto b = exact->Search({scope.scope_id, q, SearchMode::kVector, 10, false, std::nullopt});
    if (!a.ok() || !b.ok()) std::abort();
    if (b->hits.empty()) continue;
    const double kth = b->hits.back().score;
    for (const auto& h : a->hits) found += h.score >= kth - 1e-6 ? 1 : 0;
    wanted += static_cast<double>(b->hits.size());
  }
  if (wanted) std::printf("vector recall of the exact top 10: %.3f\n", found / wanted);
  // The source log, for prepare_context's experience recall.
  SourceService sources(*store);
  for (int64_t done = 0; done < source_count;) {
    std::vector<SourceInput> batch;
    for (; done < source_count && batch.size() < kMaxSourceBatch; ++done)
      batch.push_back({"work_log", "", corpus.Entry(done % 3 == 2) + " " + corpus.Entry(false),
                       "{}", std::nullopt});
    if (!sources.Add(scope.scope_id, batch).ok()) std::abort();
  }
  std::printf(
      "| mode | p50 ms | p95 ms | p99 ms | mean hits | first round p50 ms |\n"
      "|---|---|---|---|---|---|\n");
  struct Row {
    const char* name;
    const char* selector;  // the --modes word that selects it
    SearchService* service;
    SearchMode mode;
    const std::vector<std::string>* queries;
    bool plain = false;  // true: `feedback: false`, plain BM25 (the default re-ranks with
                         // pseudo-relevance feedback and neighbour propagation)
  };
  for (const Row& row :
       {Row{"fts", "fts", search.get(), SearchMode::kFts, &qs},
        Row{"fts, plain BM25", "fts", search.get(), SearchMode::kFts, &qs, true},
        Row{"vector", "vector", search.get(), SearchMode::kVector, &qs},
        Row{"vector (exact scan)", "vector", exact.get(), SearchMode::kVector, &qs},
        Row{"hybrid", "hybrid", search.get(), SearchMode::kHybrid, &qs},
        Row{"fts, sentence queries", "long", search.get(), SearchMode::kFts, &long_qs},
        Row{"fts, sentence queries, plain BM25", "long", search.get(), SearchMode::kFts, &long_qs,
            true},
        Row{"hybrid, sentence queries", "long", search.get(), SearchMode::kHybrid, &long_qs}}) {
    if (!Selected(modes, row.selector)) continue;
    if (row.mode != SearchMode::kFts && !vectors) continue;
    std::vector<double> ms, first_round;
    double hits = 0;
    for (int round = 0; round < 2; ++round) {  // the first round warms the caches
      if (round == 1) first_round = ms;
      ms.clear();
      hits = 0;
      for (const std::string& q : *row.queries) {
        auto t0 = std::chrono::steady_clock::now();
        SearchRequest req{scope.scope_id, q, row.mode, 10, false, std::nullopt};
        req.feedback = !row.plain;
        auto r = row.service->Search(req);
        ms.push_back(MillisSince(t0));
        if (!r.ok()) {
          std::printf("search failed: %s\n", r.status().ToString().c_str());
          std::abort();
        }
        hits += static_cast<double>(r->hits.size());
      }
    }
    result["modes"][row.name] = Latency(ms);
    std::printf("| %s | %.3f | %.3f | %.3f | %.1f | %.3f |\n", row.name, Percentile(ms, 0.50),
                Percentile(ms, 0.95), Percentile(ms, 0.99),
                hits / static_cast<double>(row.queries->size()), Percentile(first_round, 0.50));
  }
  if (Selected(modes, "concurrent") && vectors) {
    // Searches of one scope from 1 and from 4 threads at once: they share the memory's index (a
    // search used to hold its lock, so they ran one at a time). The ratio is bounded by cores.
    std::printf(
        "\n| concurrent, one scope | 1 thread searches/s | 4 threads searches/s | ratio "
        "|\n|---|---|---|---|\n");
    for (SearchMode mode : {SearchMode::kVector, SearchMode::kHybrid}) {
      double rate[2] = {0, 0};
      for (int round = 0; round < 2; ++round) {
        const int threads = round == 0 ? 1 : 4;
        std::atomic<bool> failed{false};
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
          pool.emplace_back([&] {
            for (const std::string& q : qs)
              if (!search->Search({scope.scope_id, q, mode, 10, false, std::nullopt}).ok())
                failed = true;
          });
        for (std::thread& th : pool) th.join();
        if (failed) std::abort();
        rate[round] = static_cast<double>(threads) * static_cast<double>(qs.size()) /
                      (MillisSince(t0) / 1000);
      }
      const char* name = mode == SearchMode::kVector ? "vector" : "hybrid";
      result["concurrent"][name] = {{"threads_1", rate[0]}, {"threads_4", rate[1]}};
      std::printf("| %s | %.0f | %.0f | %.2f |\n", name, rate[0], rate[1], rate[1] / rate[0]);
    }
  }
  if (Selected(modes, "prepare")) {
    // prepare_context with the offline defaults (no embedder: auto = fts), a 4,000-byte budget.
    SearchService plain(*store);
    ContextService context(*store, plain);
    std::vector<double> ms;
    double items = 0;
    for (int round = 0; round < 2; ++round) {
      ms.clear();
      items = 0;
      for (const std::string& q : qs) {
        auto t0 = std::chrono::steady_clock::now();
        auto r = context.Prepare({scope.scope_id, q, 4000, SearchMode::kAuto, true});
        ms.push_back(MillisSince(t0));
        if (!r.ok()) {
          std::printf("prepare failed: %s\n", r.status().ToString().c_str());
          std::abort();
        }
        items += static_cast<double>(r->items.size());
      }
    }
    result["modes"]["prepare_context"] = Latency(ms);
    std::printf(
        "| prepare_context (fts, %lld sources, 4,000 bytes) | %.3f | %.3f | %.3f | %.1f items |\n",
        static_cast<long long>(source_count), Percentile(ms, 0.50), Percentile(ms, 0.95),
        Percentile(ms, 0.99), items / static_cast<double>(qs.size()));
  }
  // A restart: a new service loads the vectors and the saved graph instead of building it.
  search.reset();
  if (vectors) {
    auto restarted = std::make_unique<SearchService>(*store, &embedder, nullptr, graph_options);
    auto t0 = std::chrono::steady_clock::now();
    if (!restarted->WarmVectors(scope.scope_id).ok()) std::abort();
    result["restart_vectors_ms"] = MillisSince(t0);
    std::printf("after a restart: vectors%s loaded in %.0f ms\n",
                restarted->vector_cache().stats().graphs_loaded ? " and saved graph" : "",
                MillisSince(t0));
  }
  // Disk: the database (entries, versions, manifest, full text, vectors, sources) and saved graphs.
  exact.reset();
  store.reset();  // closes the database: the log is checkpointed and removed
  const int64_t ann = std::filesystem::exists(dir + "/ann") ? DirectoryBytes(dir + "/ann") : 0;
  const int64_t all = DirectoryBytes(dir) + (schema ? schema->Bytes() : 0);
  result["disk_bytes_per_entry"] = static_cast<double>(all) / static_cast<double>(entries);
  result["graph_bytes_per_entry"] = static_cast<double>(ann) / static_cast<double>(entries);
  std::printf("disk: %.0f bytes per entry (%.0f MB in all, of which the vector graph %.0f MB)\n",
              static_cast<double>(all) / static_cast<double>(entries),
              static_cast<double>(all) / 1e6, static_cast<double>(ann) / 1e6);
  if (!server_binary.empty()) {
    std::string server_dir = schema ? ScratchDir("pcjoin") : dir;
    result["server"] = ServerStartup(server_binary, server_dir, scope.scope_id, qs.front(), vectors,
                                     schema ? schema->url() : "");
    if (schema) std::filesystem::remove_all(server_dir);
  }
  g_results.push_back(result);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {10000, 100000};
  int queries = 300;
  int64_t source_count = 10000;
  std::string modes = "fts,vector,hybrid,long,prepare,concurrent";
  std::string json_path, server_binary, store_base;
  {  // powercontext next to the bench directory, as scripts/build lays them out
    std::filesystem::path self =
        std::filesystem::canonical("/proc/self/exe").parent_path().parent_path() / "powercontext";
    if (std::filesystem::exists(self)) server_binary = self.string();
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--entries" && i + 1 < argc) {
      sizes.clear();
      std::stringstream in(argv[++i]);
      std::string part;
      while (std::getline(in, part, ',')) sizes.push_back(std::stoll(part));
    } else if (a == "--fill-batch" && i + 1 < argc) {
      pc::g_fill_batch = std::max(1, std::stoi(argv[++i]));
    } else if (a == "--queries" && i + 1 < argc) {
      queries = std::stoi(argv[++i]);
    } else if (a == "--sources" && i + 1 < argc) {
      source_count = std::stoll(argv[++i]);
    } else if (a == "--modes" && i + 1 < argc) {
      modes = argv[++i];
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else if (a == "--server" && i + 1 < argc) {
      server_binary = argv[++i];  // "" skips the start-up measurement
    } else if (a == "--store" && i + 1 < argc) {
      store_base = argv[++i];  // postgresql://…: each size in a fresh schema there
    } else {
      std::fprintf(stderr,
                   "usage: search_bench [--entries 10000,100000] [--sources 10000] [--queries 300] "
                   "[--modes fts,vector,hybrid,long,prepare,concurrent] [--json FILE] [--server "
                   "BIN] [--store postgresql://…] [--fill-batch N]\n");
      return 2;
    }
  }
  for (int64_t n : sizes) pc::Run(n, source_count, queries, modes, server_binary, store_base);
  if (!json_path.empty()) std::ofstream(json_path) << pc::g_results.dump(2) << "\n";
  return 0;
}
