// POST /v1/memory/search (DESIGN §4, invariants 9–10): full-text, vector and hybrid retrieval over
// one revision snapshot of a scope's memory.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "search/embedder.h"
#include "search/entity_graph.h"
#include "search/feedback.h"
#include "search/text_query.h"
#include "service/core/scope_ref.h"
#include "service/search/vector_cache.h"
#include "store/store.h"

namespace pc {

enum class SearchMode { kFts, kVector, kHybrid, kAuto, kGraph };
const char* SearchModeName(SearchMode m);
Result<SearchMode> ParseSearchMode(const std::string& s);

inline constexpr int kDefaultSearchLimit = 10;
inline constexpr int kMaxSearchLimit = 100;
// The spec's query maxLength is 8192 characters; in UTF-8 that is at most 4 bytes each.
inline constexpr size_t kMaxQueryBytes = 8192 * 4;
// Hybrid fuses this many candidates from each retriever (or `limit`, if larger). Measured on
// MADial-Bench with the hash embedder (docs/quality.md): 20 → recall@10 0.524 / 0.498 (zh / en),
// 30 → 0.479 / 0.474, 50 → 0.488 / 0.488; deeper lists let weak vector hits in, and cost more.
inline constexpr int kFusionDepth = 20;
// Vector admission: hits below this cosine similarity are not admitted (chosen by measurement on
// MADial-Bench with the hash embedder: docs/quality.md).
inline constexpr double kDefaultMinSimilarity = 0.05;
// A reranked search reorders this many candidates of its snapshot (or `limit`, if larger), then
// keeps `limit`: upstream RFC 0080's coarse pool, so a rerank can lift a hit from below the limit.
inline constexpr int kRerankCandidates = 30;

struct SearchRequest {
  std::string scope_id;
  std::string query;
  SearchMode mode = SearchMode::kAuto;
  int limit = kDefaultSearchLimit;
  bool include_inactive = false;
  std::optional<double> min_similarity;
  // Reorder the top max(limit, kRerankCandidates) hits with the rerank provider, then keep `limit`
  // (503 capability_unavailable when none is configured; its failure fails the search).
  bool rerank = false;
  std::optional<int64_t> min_revision;  // read-your-writes (validation.h CheckMinRevision)
  int graph_hops = kDefaultGraphHops;  // graph channel: entries linked within this many hops (1–3)
  // Full text: pseudo-relevance feedback and neighbour propagation (service/search/text_channel.h),
  // on by default (docs/quality.md: MemoryBank R@10 +0.05 to +0.07 held-out, MADial unchanged);
  // false is plain BM25.
  bool feedback = true;
  FeedbackOptions feedback_options{};
  // `query` as BuildTextQuery makes it, when the caller analyzed it already (prepare reuses its
  // own for sources and Experience); otherwise the search builds it.
  std::optional<TextQuery> text;
  // `scope_id` as the caller parsed it (the router; prepare, which reads the scope too): the search
  // then shares its lookup. Null: the search parses scope_id. Held by the caller for the call.
  const ScopeRef* scope = nullptr;
};

struct SearchHit {
  ManifestItem item;
  double score = 0;  // relevance in [0, 1] within one mode: fts s/(1+s) of bm25, vector cosine,
                     // graph EntityGraph::Hit::score, hybrid RRF / its best
  std::vector<std::string> matched_by;  // "fts", "vector", "graph"
  std::optional<double> rerank_score;   // set when the hits were reranked
};

struct SearchResult {
  SearchMode mode_used = SearchMode::kFts;
  MemoryRef memory;  // the revision searched; every hit's citation is at it (unset: no such scope)
  std::vector<SearchHit> hits;
  ModelUsage query_usage;  // what embedding the query cost, as the provider reported it
};

class Embedder;
class Reranker;

// What each search mode needs, and whether it has it (for one scope, or in general).
struct Capability {
  std::string mode;
  bool available = false;
  std::string reason;  // why not, when not
};

struct ReindexResult {
  int64_t embedded = 0;  // vectors written
  int64_t missing = 0;   // active entries still without a vector afterwards
};

class SearchService {
 public:
  // `embedder` may be null (fts only); it must outlive the service.
  SearchService(Store& store, Embedder* embedder = nullptr, Reranker* reranker = nullptr,
                VectorCacheOptions vector_options = {})
      : store_(store),
        embedder_(embedder),
        reranker_(reranker),
        vectors_(std::move(vector_options)) {}

  // Thread-safe. An explicit vector or graph search without the capability is
  // CapabilityUnavailable, and so is a hybrid one with neither; hybrid fuses fts with each of
  // vector and graph that is available (matched_by names them); auto is hybrid when either is,
  // else fts, and says so in mode_used.
  // Records the query embedding's usage (memory_recall) once the search succeeded.
  Result<SearchResult> Search(const SearchRequest& req);
  // The same search, leaving the usage in query_usage for the caller to record (prepare_context
  // records it with its recall measurement, in one write).
  // `also` (if set) runs in the search's own read transaction, after its reads: what it reads comes
  // from the snapshot the hits come from (prepare_context's handoff and Experience). It runs even
  // when the scope has no memory yet, and not when the search fails first.
  Result<SearchResult> SearchWithoutRecording(
      const SearchRequest& req, const std::function<Status(ReadTxn&)>& also = nullptr);

  // Each mode's availability; with a scope, including whether its vector projection is complete.
  Result<std::vector<Capability>> Capabilities(const std::string& scope_id);
  // Whether vector (and vector-hybrid) search can serve this scope now: the vector row of
  // Capabilities alone, without the other modes' checks (the background backfill asks it per
  // scope).
  Result<bool> VectorsComplete(const std::string& scope_id);
  bool has_embedder() const { return embedder_ != nullptr; }
  // The embedding provider's readiness (Embedder::Probe); "ready" without one.
  std::string ProbeEmbedder() { return embedder_ ? embedder_->Probe() : "ready"; }

  // Completes a scope's vector projection under the configured embedder (after an outage, or a
  // profile change): embeds every head entry whose vector is missing or of another profile.
  // Stops between batches when *stop becomes true.
  Result<ReindexResult> Reindex(const std::string& scope_id,
                                const std::atomic<bool>* stop = nullptr);

  // Loads a scope's vectors (and its saved graph) into memory ahead of the first vector search;
  // false when the scope has no complete vector projection for the configured embedder.
  Result<bool> WarmVectors(const std::string& scope_id);

  // The in-memory vector indexes (their statistics; waiting for graph builds).
  VectorCache& vector_cache() { return vectors_; }

 private:
  // SearchWithoutRecording without its latency metric.
  Result<SearchResult> SearchSnapshot(const SearchRequest& req, const ScopeRef& scope,
                                      const std::function<Status(ReadTxn&)>& also);
  // What a search computes before its snapshot (a slow model never holds one).
  struct Query;
  // The search itself, in one snapshot: the head, the mode that runs, each channel's hits, fused.
  Status SearchIn(ReadTxn& txn, const ScopeRef& scope, const SearchRequest& req, const Query& q,
                  SearchResult& out);
  Status Rerank(const std::string& query, std::vector<SearchHit>& hits);
  // Why vector search cannot serve `memory` now (empty: it can).
  Result<std::string> VectorGapIn(ReadTxn& txn, const Artifact& memory);
  // The memory's graph projection at its head (empty: no triples): built from the store's edges
  // once, then moved to each new head by what changed since the cached one.
  Result<std::shared_ptr<const EntityGraph>> GraphAt(ReadTxn& txn, const Artifact& memory);

  Store& store_;
  Embedder* embedder_;
  Reranker* reranker_;
  VectorCache vectors_;
  struct CachedGraph {
    int64_t revision = 0;
    std::shared_ptr<const EntityGraph> graph;
  };
  std::mutex graphs_mu_;
  std::unordered_map<std::string, CachedGraph> graphs_;  // by memory artifact
};

}  // namespace pc
