// Commit cost against memory size: the manifest is stored as version intervals, so committing one
// change must cost the same with 100 entries or 100,000 (DESIGN §1).
//
//   build/bench/commit_bench --benchmark_min_time=2 --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true     (one line; 100 and 100,000 entries, durable)
//   build/bench/commit_bench --benchmark_filter=/100$ --benchmark_min_time=0.05   # CI smoke
//
// Each size gets a fresh store in a temp dir, filled through the store's own commit path in
// revisions of 1,000 adds, then the timed loop runs remember (a new entry) or revise (one entry).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/ids.h"
#include "model/canonical.h"
#include "service/memory_service.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

constexpr int kFillBatch = 1000;

struct Memory {
  std::string dir;
  std::unique_ptr<sqlite::SqliteStore> store;
  std::unique_ptr<MemoryService> service;
  std::string scope_id;
  Citation last;

  explicit Memory(int64_t entries) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "pcbench-XXXXXX").string();
    dir = mkdtemp(tmpl.data());
    sqlite::SqliteOptions o;
    o.data_dir = dir;
    store = std::move(sqlite::SqliteStore::Open(o)).value();
    service = std::make_unique<MemoryService>(*store, ServiceLimits{});
    Scope scope = service->CreateScope("bench").value().scope;
    scope_id = scope.scope_id;
    int64_t made = 0, revision = 0;
    while (made < entries) {
      NewRevision rev;
      rev.info.memory = MemoryRef{kMemoryFamily, scope.memory_artifact_id, ++revision};
      rev.info.actor = "bench";
      rev.info.created_at_ms = NowMillis();
      for (int i = 0; i < kFillBatch && made < entries; ++i, ++made) {
        EntryVersion v;
        v.entry_id = NewId(kEntryPrefix);
        v.entry_version_id = NewId(kEntryVersionPrefix);
        v.version = 1;
        v.kind = "fact";
        v.text = "filler entry number " + std::to_string(made) + " about the orders importer";
        v.content_hash = ContentHash(v.kind, v.text).value();
        v.created_by_revision = revision;
        v.created_at_ms = rev.info.created_at_ms;
        rev.info.changes.push_back({ChangeOp::kAdd, v.entry_id, std::nullopt, v.entry_version_id});
        rev.manifest.push_back({v.entry_id, v.entry_version_id, true});
        rev.new_versions.push_back(std::move(v));
      }
      Status s = store->Write([&](WriteTxn& txn) { return txn.CommitRevision(rev); });
      if (!s.ok()) std::abort();
    }
    last = service->Remember({scope_id, "fact", "the entry the benchmark revises", "", "bench", {}})
               .value()
               .citation.value();
  }
  ~Memory() {
    service.reset();
    store.reset();
    std::filesystem::remove_all(dir);
  }
};

void BM_Remember(benchmark::State& state) {
  Memory m(state.range(0));
  int64_t i = 0;
  for (auto _ : state) {
    auto r = m.service->Remember(
        {m.scope_id, "fact", "new entry " + std::to_string(i++), "", "bench", {}});
    if (!r.ok() || !r->changed) state.SkipWithError("remember failed");
  }
  state.counters["entries"] = static_cast<double>(state.range(0));
}

void BM_Revise(benchmark::State& state) {
  Memory m(state.range(0));
  int64_t i = 0;
  for (auto _ : state) {
    auto r = m.service->Revise(
        {m.scope_id, m.last, "revised text " + std::to_string(i++), std::nullopt, "", "bench"});
    if (!r.ok()) state.SkipWithError("revise failed");
    else m.last = *r->citation;
  }
  state.counters["entries"] = static_cast<double>(state.range(0));
}

BENCHMARK(BM_Remember)->Arg(100)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Revise)->Arg(100)->Arg(100000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pc

BENCHMARK_MAIN();
