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
// BM_RememberCommonWords is the gate's case that grows with the memory (issue 28): a project's
// memory repeats its words, so every statement here is 8–12 words of one 30-word vocabulary, the
// filler and the timed remembers alike; the reconcile lookup then reads candidates that share
// common words with a large part of the memory.
//
// Each size gets a fresh store in a temp dir, filled through the store's own commit path in
// revisions of 1,000 adds (testing/bulk_fill.h), then the timed loop runs remember (a new entry) or
// revise (one entry).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "bench_util.h"
#include "bulk_fill.h"
#include "service/memory/memory_service.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

struct Memory {
  std::string dir;
  std::unique_ptr<sqlite::SqliteStore> store;
  std::unique_ptr<MemoryService> service;
  std::string scope_id;
  Citation last;

  explicit Memory(
      int64_t entries, bool gate = true,
      std::function<std::string(int64_t)> filler = [](int64_t i) {
        return "filler entry number " + std::to_string(i) + " about the orders importer";
      }) {
    dir = ScratchDir("pcbench");
    sqlite::SqliteOptions o;
    o.data_dir = dir;
    store = std::move(sqlite::SqliteStore::Open(o)).value();
    ServiceLimits limits;
    limits.policy.reconcile = gate ? ReconcilePolicy::kWarn : ReconcilePolicy::kOff;
    service = std::make_unique<MemoryService>(*store, limits);
    Scope scope = service->CreateScope("bench").value().scope;
    scope_id = scope.scope_id;
    if (!FillMemory(*store, scope, entries, filler, nullptr).ok()) std::abort();
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
    if (!r.ok())
      state.SkipWithError("revise failed");
    else
      m.last = *r->citation;
  }
  state.counters["entries"] = static_cast<double>(state.range(0));
}

// A statement of 8–12 words from 30 common ones, the same for the same `i`.
std::string CommonWords(int64_t i) {
  static const char* kWords[] = {
      "the",     "importer",  "orders", "amounts", "cents",  "tests",  "run",      "after",
      "schema",  "migration", "csv",    "line",    "number", "rows",   "rejects",  "decimal",
      "integer", "validator", "client", "server",  "deploy", "before", "contract", "checked",
      "build",   "release",   "notes",  "config",  "cache",  "index"};
  uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&x] {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
  };
  std::string out;
  const int n = 8 + static_cast<int>(next() % 5);
  for (int w = 0; w < n; ++w) out += std::string(w ? " " : "") + kWords[next() % 30];
  return out;
}

void BM_RememberCommonWords(benchmark::State& state) {
  Memory m(state.range(0), state.range(1) != 0, CommonWords);
  int64_t i = state.range(0) + 1000000;
  for (auto _ : state) {
    auto r = m.service->Remember({m.scope_id, "fact", CommonWords(i++), "", "bench", {}});
    if (!r.ok()) state.SkipWithError("remember failed");
  }
  state.counters["entries"] = static_cast<double>(state.range(0));
}

BENCHMARK(BM_RememberCommonWords)
    ->ArgsProduct({{1000, 10000, 100000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Remember)->ArgsProduct({{100, 100000}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Revise)->ArgsProduct({{100, 100000}, {0, 1}})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pc

BENCHMARK_MAIN();
