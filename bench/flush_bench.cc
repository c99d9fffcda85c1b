// Source ingest throughput and flush overhead, in process, durable (synchronous=FULL).
//
//   build/bench/flush_bench [--windows 20] [--entries 1000]
//
// Ingest: sources appended one per request (one transaction each), then 100 per batch request.
// Flush: windows of 100 sources against a memory of --entries entries; the model is the fake
// OpenAI-compatible server on loopback answering at once with 10 adds per window. The overhead
// is a flush's wall time less the time spent waiting for the model's HTTP answer (measured around
// the call), i.e. reading the window, building the prompt, validating, committing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.h"
#include "fake_openai.h"
#include "providers/openai_chat_extractor.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "service/memory/memory_service.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

std::string Record(int i) {
  return "work log " + std::to_string(i) + ": the importer now validates column " +
         std::to_string(i % 37) +
         " and reports the CSV line number; decided to keep amounts as integer cents (run " +
         std::to_string(i) + ").";
}

int Run(int windows, int entries) {
  std::string dir = ScratchDir("pcflush");
  sqlite::SqliteOptions o;
  o.data_dir = dir;
  auto store = std::move(sqlite::SqliteStore::Open(o)).value();
  MemoryService memory(*store, ServiceLimits{});
  SourceService sources(*store);
  std::string scope = memory.CreateScope("bench").value().scope.scope_id;
  for (int i = 0; i < entries; ++i)
    if (!memory
             .Remember(
                 {scope,
                  "fact",
                  "existing entry " + std::to_string(i) + " about topic " + std::to_string(i % 53),
                  "",
                  "bench",
                  {}})
             .ok())
      return 1;

  // Ingest.
  const int kSingles = 2000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kSingles; ++i)
    if (!sources.Add(scope, {{"work_log", "archive", Record(i), "{}", std::nullopt}}).ok())
      return 1;
  double single_ms = MillisSince(t0);
  t0 = std::chrono::steady_clock::now();
  for (int b = 0; b < kSingles / 100; ++b) {
    std::vector<SourceInput> batch;
    for (int i = 0; i < 100; ++i)
      batch.push_back({"work_log", "archive", Record(b * 100 + i), "{}", std::nullopt});
    if (!sources.Add(scope, batch).ok()) return 1;
  }
  double batch_ms = MillisSince(t0);
  std::printf("ingest, one source per request: %.0f sources/s (%.3f ms each)\n",
              kSingles / single_ms * 1000, single_ms / kSingles);
  std::printf("ingest, 100 sources per batch request: %.0f sources/s\n",
              kSingles / batch_ms * 1000);

  // Flush: skip past the archive sources first (they only move the cursor).
  testing::FakeOpenAi fake;
  OpenAiChatOptions chat;
  chat.base_url = fake.base_url();
  chat.model = "fake";
  auto extractor = std::move(OpenAiChatExtractor::Create(chat)).value();
  FlushOptions window;
  window.source_window_limit = 100;
  FlushService flush(*store, extractor.get(), nullptr, window);
  while (true) {
    auto r = flush.Flush(scope);
    if (!r.ok()) return 1;
    if (!r->processed) break;
  }
  std::vector<testing::FakeOpenAi::ChatReply> replies;
  for (int w = 0; w < windows; ++w) {
    std::string ops;
    for (int k = 0; k < 10; ++k)
      ops += std::string(k ? "," : "") + R"({"op":"add","kind":"fact","text":"window )" +
             std::to_string(w) + " finding " + std::to_string(k) + R"(","evidence":["S)" +
             std::to_string(k * 10 + 1) + R"("]})";
    replies.emplace_back(R"({"operations":[)" + ops + "]}");
  }
  fake.ScriptChat(replies);
  std::vector<double> total, overhead;
  for (int w = 0; w < windows; ++w) {
    std::vector<SourceInput> batch;
    for (int i = 0; i < 100; ++i)
      batch.push_back({"work_log", "", Record(w * 100 + i), "{}", std::nullopt});
    if (!sources.Add(scope, batch).ok()) return 1;
    t0 = std::chrono::steady_clock::now();
    auto r = flush.Flush(scope);
    double ms = MillisSince(t0);
    if (!r.ok() || r->processed_source_count != 100 || r->changes.size() != 10) {
      std::printf("flush failed: %s\n",
                  r.ok() ? "unexpected outcome" : r.status().ToString().c_str());
      return 1;
    }
    total.push_back(ms);
    overhead.push_back(ms - r->model_ms);
  }
  std::printf("flush of a 100-source window (memory of %d entries, 10 adds committed):\n", entries);
  std::printf("| | p50 ms | p95 ms |\n|---|---|---|\n");
  std::printf("| wall time, fake model on loopback included | %.2f | %.2f |\n",
              Percentile(total, 0.5), Percentile(total, 0.95));
  std::printf("| overhead, model time excluded | %.2f | %.2f |\n", Percentile(overhead, 0.5),
              Percentile(overhead, 0.95));
  store.reset();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  int windows = 20, entries = 1000;
  if (!pc::ParseFlags(argc, argv, {{"--windows", &windows}, {"--entries", &entries}},
                      "usage: flush_bench [--windows 20] [--entries 1000]\n"))
    return 2;
  return pc::Run(windows, entries);
}
