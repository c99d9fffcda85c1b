// Commit cost against memory size: the manifest is stored as version intervals, so committing one
// change must cost the same with 100 entries or 100,000 (DESIGN §1).
//
//   build/bench/commit_bench --benchmark_min_time=2 --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true     (one line; 100 and 100,000 entries, durable)
//   build/bench/commit_bench --benchmark_filter=/100/ --benchmark_min_time=0.05   # CI smoke
//
// The second argument is the reconcile gate (docs/write-gates.md): 0 off, 1 warn (the default).
// Every text here shares most of its words with the others, so with the gate on each write reads
// its 8 full-text candidates and finds near-duplicates: the gate's worst case.
//
// Each size gets a fresh store in a temp dir, filled through the store's own commit path in
// revisions of 1,000 adds (testing/bulk_fill.h), then the timed loop runs remember (a new entry) or revise (one entry).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "bench_util.h"
#include "bulk_fill.h"
#include "service/memory_service.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

struct Memory {
  std::string dir;
  std::unique_ptr<sqlite::SqliteStore> store;
  std::unique_ptr<MemoryService> service;
  std::string scope_id;
  Citation last;

  explicit Memory(int64_t entries, bool gate = true) {
    dir = ScratchDir("pcbench");
    sqlite::SqliteOptions o;
    o.data_dir = dir;
    store = std::move(sqlite::SqliteStore::Open(o)).value();
    ServiceLimits limits;
    limits.policy.reconcile = gate ? ReconcilePolicy::kWarn : ReconcilePolicy::kOff;
    service = std::make_unique<MemoryService>(*store, limits);
    Scope scope = service->CreateScope("bench").value().scope;
    scope_id = scope.scope_id;
    if (!FillMemory(*store, scope, entries, [](int64_t i) {
          return "filler entry number " + std::to_string(i) + " about the orders importer";
        }, nullptr).ok())
      std::abort();
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
  Memory m(state.range(0), state.range(1) != 0);
  int64_t i = 0;
  for (auto _ : state) {
    auto r = m.service->Remember(
        {m.scope_id, "fact", "new entry " + std::to_string(i++), "", "bench", {}});
    if (!r.ok() || !r->changed) state.SkipWithError("remember failed");
  }
  state.counters["entries"] = static_cast<double>(state.range(0));
}

void BM_Revise(benchmark::State& state) {
  Memory m(state.range(0), state.range(1) != 0);
  int64_t i = 0;
  for (auto _ : state) {
    auto r = m.service->Revise(
        {m.scope_id, m.last, "revised text " + std::to_string(i++), std::nullopt, "", "bench"});
    if (!r.ok()) state.SkipWithError("revise failed");
    else m.last = *r->citation;
  }
  state.counters["entries"] = static_cast<double>(state.range(0));
}

BENCHMARK(BM_Remember)->ArgsProduct({{100, 100000}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Revise)->ArgsProduct({{100, 100000}, {0, 1}})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pc

BENCHMARK_MAIN();
