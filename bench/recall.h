// What the recall benchmarks share (bench/recall.cc, docs/quality.md): a store with the services
// over it, the queries with their labelled memories, and recall@k measured through SearchService.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "search/hash_embedder.h"
#include "search/static_embedder.h"
#include "service/memory/memory_service.h"
#include "service/search/search_service.h"
#include "store/store.h"

namespace pc {

inline constexpr int kDepths[] = {1, 5, 10, 20};
inline constexpr int kMaxDepth = 20;

// One language's store (SQLite in a fresh temp dir, or the PostgreSQL at `store_url`) with the
// write and search services over it, vectors from `embedder`: "hash" (the offline hash embedder,
// the default) or "static" / "static=FILE" (word vectors, search/static_embedder.h). Exits 2 when
// the store or the vectors do not open; removes the temp dir when destroyed.
class BenchStore {
 public:
  BenchStore(const std::string& name, const std::string& store_url,
             const std::string& embedder = "hash");
  ~BenchStore();
  Store& store() { return *store_; }
  Embedder& embedder() { return *embedder_; }
  MemoryService& memory() { return *memory_; }
  SearchService& search() { return *search_; }

 private:
  std::string dir_;  // SQLite's
  std::unique_ptr<Store> store_;
  std::unique_ptr<Embedder> embedder_;
  std::unique_ptr<MemoryService> memory_;
  std::unique_ptr<SearchService> search_;
};

// One search and the benchmark memories that answer it.
struct RecallQuery {
  std::string scope_id, text;
  std::string group;  // a split ("dev", "held-out"), or empty
  std::vector<std::string> relevant;
};

// The queries of one language, and which benchmark memories each entry holds (several when they
// were remembered with the same text: the duplicate is the existing entry).
struct Corpus {
  std::vector<RecallQuery> queries;
  std::map<std::string, std::vector<std::string>> ids_of_entry;
  // The same by text as remembered (and as stored): what the scripted rerank models go by, since
  // the model is shown texts only.
  std::map<std::string, std::vector<std::string>> ids_of_text;
};

// A fresh scope named `key` plus a run id (a PostgreSQL database outlives the run). Exits 2 on
// failure.
std::string NewScope(MemoryService& memory, const std::string& key);

// Remembers `text` as a fact through the real write path and records it as benchmark memory `id`
// (empty: a distractor). Exits 2 when the write fails.
void RememberAs(MemoryService& memory, const std::string& scope, const std::string& text,
                const std::string& id, Corpus& corpus);

// recall@k per depth for one mode (or why it could not search), and the query latency.
struct ModeResult {
  std::string error;
  std::map<int, double> recall;
  size_t queries = 0;
  double p50_ms = 0, p95_ms = 0;
};

// For each query the share of its relevant memories in the top k, averaged over queries: per
// group under its name, and over all queries under "all".
// With `rerank`, each search asks for it, `before` being told which query is asked first.
std::map<std::string, ModeResult> Measure(
    SearchService& search, const Corpus& corpus, SearchMode mode, int graph_hops,
    bool feedback = false, bool rerank = false,
    const std::function<void(const RecallQuery&)>& before = nullptr);

// Bounds of the chat model's listwise rerank (bench/recall_rerank.cc, providers/chat_reranker.h):
// a search service over `store` whose rerank_provider = chat talks to a scripted fake model on
// loopback, through the real chat client, request and answer reading. kOracle ranks the shown
// candidates that hold a relevant memory of the query being measured first (an upper bound: no
// model can do better with this pool); kShuffle answers every number in a random order seeded by
// the query (a lower bound: a model that knows nothing).
enum class ScriptedRanking { kOracle, kShuffle };
class ScriptedRerank {
 public:
  ScriptedRerank(Store& store, const Corpus& corpus, ScriptedRanking how);
  ~ScriptedRerank();
  SearchService& search();
  // The query the next searches are for (the oracle reads its labels).
  void Asking(const RecallQuery& q);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// MemoryBank (bench/recall_memorybank.cc): every person's dialogue remembered in order in the
// person's own scope, and the probing questions labelled in `labels_path` as the queries.
// `lang` is "zh" or "en". Exits 2 when the labels do not match the data.
Corpus LoadMemoryBank(MemoryService& memory, const std::string& lang, const std::string& data,
                      const std::string& labels_path);

}  // namespace pc
