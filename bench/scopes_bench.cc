// How the store behaves in the number of scopes (one per user or per project): creating a scope,
// the bytes an empty scope costs, opening the store again, the first key lookup after that, and a
// search — at 1k, 10k and 100k scopes. Until schema 5 every scope had FTS5 tables of its own:
// 10,000 scopes were 60,055 schema objects, a new scope took 130–240 ms, a restart 111 s.
//
//   build/bench/scopes_bench [--scopes 1000,10000,100000] [--json FILE]
//
// Scopes are filled with durability normal (the figures are about the schema, not fsync); each
// gets one entry and one source. The creations measured afterwards use the default (full).
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_util.h"
#include "service/flush/source_service.h"
#include "service/memory/memory_service.h"
#include "service/search/search_service.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

constexpr int kMeasuredCreations = 200;

std::unique_ptr<sqlite::SqliteStore> OpenStore(const std::string& dir,
                                               sqlite::Durability durability) {
  sqlite::SqliteOptions o;
  o.data_dir = dir;
  o.durability = durability;
  auto store = sqlite::SqliteStore::Open(o);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    std::abort();
  }
  return std::move(store).value();
}

uintmax_t DataBytes(const std::string& dir) {
  uintmax_t total = 0;
  for (const char* f : {"powercontext.db", "powercontext.db-wal"}) {
    std::error_code ec;
    auto n = std::filesystem::file_size(std::filesystem::path(dir) / f, ec);
    if (!ec) total += n;
  }
  return total;
}

int64_t SchemaObjects(const std::string& dir) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2((std::filesystem::path(dir) / "powercontext.db").c_str(), &db,
                      SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema", -1, &s, nullptr) ==
            SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return n;
}

template <typename T>
T Must(Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, r.status().ToString().c_str());
    std::abort();
  }
  return std::move(r).value();
}

nlohmann::json Run(int64_t scopes) {
  nlohmann::json out{{"scopes", scopes}};
  const std::string dir = ScratchDir("pc-scopes-bench");
  std::vector<std::string> ids;
  ids.reserve(static_cast<size_t>(scopes));
  uintmax_t before = 0;
  {
    OpenStore(dir, sqlite::Durability::kNormal)
        .reset();  // the empty database, closed (log folded in)
    before = DataBytes(dir);
    auto store = OpenStore(dir, sqlite::Durability::kNormal);
    MemoryService memory(*store, ServiceLimits{});
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < scopes; ++i)
      ids.push_back(Must(memory.CreateScope("user:" + std::to_string(i)), "create").scope.scope_id);
    out["fill_scopes_s"] = MillisSince(t0) / 1000;
  }
  out["bytes_per_empty_scope"] =
      static_cast<double>(DataBytes(dir) - before) / static_cast<double>(scopes);
  {
    auto store = OpenStore(dir, sqlite::Durability::kNormal);
    MemoryService memory(*store, ServiceLimits{});
    auto t0 = std::chrono::steady_clock::now();
    SourceService sources(*store);
    t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < scopes; ++i) {
      const std::string& id = ids[static_cast<size_t>(i)];
      Must(memory.Remember({id,
                            "fact",
                            "User " + std::to_string(i) + " prefers invoices as parquet files.",
                            "",
                            "bench",
                            {}}),
           "remember");
      Must(sources.Add(id, {{"chat", "",
                             "Talked about invoice exports with user " + std::to_string(i) + ".",
                             "{}", std::nullopt}}),
           "source");
    }
    out["fill_entries_s"] = MillisSince(t0) / 1000;
  }
  // A restart: opening the store, then the first key lookup and the first search.
  auto t0 = std::chrono::steady_clock::now();
  auto store = OpenStore(dir, sqlite::Durability::kFull);
  out["open_ms"] = MillisSince(t0);
  MemoryService memory(*store, ServiceLimits{});
  SearchService search(*store);
  t0 = std::chrono::steady_clock::now();
  const std::string some =
      Must(memory.GetScopeByKey("user:" + std::to_string(scopes / 2)), "lookup").scope_id;
  out["first_lookup_ms"] = MillisSince(t0);
  t0 = std::chrono::steady_clock::now();
  auto hits =
      Must(search.Search({some, "invoices parquet", SearchMode::kFts, 10, false, std::nullopt}),
           "search");
  out["first_search_ms"] = MillisSince(t0);
  if (hits.hits.size() != 1) {
    std::fprintf(stderr, "search found %zu hits in one scope, expected 1\n", hits.hits.size());
    std::abort();
  }
  std::vector<double> search_ms;
  for (int i = 0; i < 200; ++i) {
    t0 = std::chrono::steady_clock::now();
    Must(search.Search({some, "invoice exports", SearchMode::kFts, 10, false, std::nullopt}),
         "search");
    search_ms.push_back(MillisSince(t0));
  }
  out["search_p50_ms"] = Percentile(search_ms, 0.5);
  // New scopes, durable, each with its first entry (the first write of a new user).
  std::vector<double> create_ms, first_write_ms;
  for (int i = 0; i < kMeasuredCreations; ++i) {
    t0 = std::chrono::steady_clock::now();
    const std::string id =
        Must(memory.CreateScope("new:" + std::to_string(i)), "create").scope.scope_id;
    create_ms.push_back(MillisSince(t0));
    t0 = std::chrono::steady_clock::now();
    Must(memory.Remember({id, "fact", "A first note.", "", "bench", {}}), "remember");
    first_write_ms.push_back(MillisSince(t0));
  }
  out["create_p50_ms"] = Percentile(create_ms, 0.5);
  out["create_p95_ms"] = Percentile(create_ms, 0.95);
  out["first_write_p50_ms"] = Percentile(first_write_ms, 0.5);
  // The same without the fsync: what a scope itself costs, whatever the disk.
  store.reset();
  {
    auto nosync = OpenStore(dir, sqlite::Durability::kNormal);
    MemoryService m(*nosync, ServiceLimits{});
    std::vector<double> ms;
    for (int i = 0; i < kMeasuredCreations; ++i) {
      t0 = std::chrono::steady_clock::now();
      Must(m.CreateScope("nosync:" + std::to_string(i)), "create");
      ms.push_back(MillisSince(t0));
    }
    out["create_nosync_p50_ms"] = Percentile(ms, 0.5);
  }
  store = OpenStore(dir, sqlite::Durability::kFull);
  out["schema_objects"] = SchemaObjects(dir);
  out["db_bytes"] = DataBytes(dir);
  store.reset();
  std::filesystem::remove_all(dir);
  std::printf("| %lld | %lld | %.0f | %.3f | %.2f | %.2f | %.1f | %.2f | %.2f | %.2f | %.1f |\n",
              static_cast<long long>(scopes),
              static_cast<long long>(out["schema_objects"].get<int64_t>()),
              out["bytes_per_empty_scope"].get<double>(), out["create_nosync_p50_ms"].get<double>(),
              out["create_p50_ms"].get<double>(), out["create_p95_ms"].get<double>(),
              out["open_ms"].get<double>(), out["first_lookup_ms"].get<double>(),
              out["first_search_ms"].get<double>(), out["search_p50_ms"].get<double>(),
              static_cast<double>(out["db_bytes"].get<uintmax_t>()) / 1e6);
  std::fflush(stdout);
  return out;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {1000, 10000, 100000};
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--scopes" && i + 1 < argc) {
      sizes.clear();
      std::string list = argv[++i];
      for (size_t p = 0; p < list.size();) {
        size_t c = list.find(',', p);
        sizes.push_back(std::stoll(list.substr(p, c - p)));
        p = c == std::string::npos ? list.size() : c + 1;
      }
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: scopes_bench [--scopes 1000,10000,100000] [--json FILE]\n");
      return 2;
    }
  }
  std::printf(
      "| scopes | schema objects | bytes per empty scope | create p50 ms (no fsync) | create p50 "
      "ms (durable) | create p95 ms (durable) | open ms | first lookup ms | first search ms | "
      "search p50 ms | db MB |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  nlohmann::json all = nlohmann::json::array();
  for (int64_t n : sizes) all.push_back(pc::Run(n));
  if (!json_path.empty()) std::ofstream(json_path) << all.dump(2) << "\n";
  return 0;
}
