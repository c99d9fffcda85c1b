#include "service/search/search_service.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "common/clock.h"
#include "ops/metrics.h"
#include "search/embedder.h"
#include "search/fusion.h"
#include "search/reranker.h"
#include "search/text_query.h"
#include "service/core/actor.h"
#include "service/core/usage_log.h"
#include "service/core/validation.h"
#include "service/search/text_channel.h"

namespace pc {
namespace {

constexpr int kReindexBatch = 256;

// Why this memory's vector projection cannot serve the embedder now, or empty when it can. (An
// embedder whose dimension is not known yet has not answered: that is the provider's failure,
// reported by the search that asked it, not a projection gap.)
std::string VectorGap(const Embedder* embedder, const ReadTxn::VectorState& state) {
  if (!embedder) return "no embedding provider is configured (set embed_provider)";
  const EmbeddingProfile profile = embedder->profile();
  if (profile.dimension == 0) return "";
  const std::string key = profile.Key();
  if (state.profile != key && !(state.profile.empty() && state.missing == 0))
    return "the vector projection is built for \"" + state.profile + "\", not \"" + key +
           "\"; run powercontext reindex";
  if (state.missing > 0)
    return "entries without a vector yet: " + std::to_string(state.missing) +
           "; run powercontext reindex";
  return "";
}

// A vector hit's version, read in the search's transaction.
Result<ManifestItem> LoadHit(ReadTxn& txn, const std::string& version_id, bool active) {
  PC_ASSIGN_OR_RETURN(std::optional<EntryVersion> v, txn.FindEntryVersion(version_id));
  if (!v) return Internal("vector row names a missing version " + version_id);
  return ManifestItem{std::move(*v), active};
}

Result<std::vector<SearchHit>> VectorHits(ReadTxn& txn, const std::vector<VectorIndex::Hit>& hits) {
  std::vector<SearchHit> out;
  for (const VectorIndex::Hit& c : hits) {
    PC_ASSIGN_OR_RETURN(ManifestItem item, LoadHit(txn, c.version_id, c.active));
    out.push_back(SearchHit{std::move(item),
                            std::clamp(static_cast<double>(c.similarity), 0.0, 1.0),
                            {"vector"},
                            std::nullopt});
  }
  return out;
}

// Hybrid: the rankings fused by RRF (fts first, then vector and graph when they ran), or, when the
// embedder asks for it and no graph joins, by the convex combination of fts's and the vector's
// normalized scores (Embedder::convex_fusion_weight); each hit says which retrievers found it.
Result<std::vector<SearchHit>> FuseHits(ReadTxn& txn, std::vector<ReadTxn::TextHit> text_hits,
                                        const std::vector<VectorIndex::Hit>* vector_hits,
                                        const std::vector<EntityGraph::Hit>* graph_hits, int limit,
                                        double convex_weight) {
  std::vector<std::vector<std::string>> lists(1);
  std::vector<const char*> names{"fts"};
  std::unordered_map<std::string, ManifestItem> items;
  std::vector<std::pair<std::string, double>> text_scores, vector_scores;
  for (auto& h : text_hits) {
    text_scores.emplace_back(h.item.version.entry_version_id, h.score);
    lists[0].push_back(h.item.version.entry_version_id);
    items.emplace(h.item.version.entry_version_id, std::move(h.item));
  }
  std::unordered_map<std::string, bool> active;  // vector hits may be retired; graph hits never are
  if (vector_hits) {
    lists.emplace_back();
    names.push_back("vector");
    for (const VectorIndex::Hit& c : *vector_hits) {
      vector_scores.emplace_back(c.version_id, c.similarity);
      lists.back().push_back(c.version_id);
      active[c.version_id] = c.active;
    }
  }
  if (graph_hits) {
    lists.emplace_back();
    names.push_back("graph");
    for (const EntityGraph::Hit& g : *graph_hits) {
      lists.back().push_back(g.entry_version_id);
      active.emplace(g.entry_version_id, true);
    }
  }
  // RRF sums 1/(k+rank) over the rankings: n/(k+1) is the best a hit can score, n counting the
  // rankings that found anything (a query that names no entity leaves the graph's empty).
  const auto ranked =
      std::count_if(lists.begin(), lists.end(), [](const auto& l) { return !l.empty(); });
  double best = static_cast<double>(std::max<std::ptrdiff_t>(ranked, 1)) / (kRrfK + 1.0);
  // A graph that found nothing for this query does not join (a memory with any edge has one).
  const bool convex = convex_weight > 0 && vector_hits && (!graph_hits || graph_hits->empty());
  if (convex)
    best = (text_scores.empty() ? 0.0 : 1.0) + (vector_scores.empty() ? 0.0 : convex_weight);
  if (best <= 0) best = 1;
  std::vector<SearchHit> out;
  for (FusedMany& f :
       convex ? FuseConvex(text_scores, vector_scores, convex_weight) : FuseRrfMany(lists)) {
    if (out.size() >= static_cast<size_t>(limit)) break;
    auto it = items.find(f.id);
    ManifestItem item;
    if (it != items.end()) {
      item = std::move(it->second);
    } else {
      PC_ASSIGN_OR_RETURN(item, LoadHit(txn, f.id, active[f.id]));
    }
    std::vector<std::string> by;
    for (size_t l = 0; l < names.size(); ++l)
      if (f.in & (1u << l)) by.push_back(names[l]);
    out.push_back(
        SearchHit{std::move(item), std::min(1.0, f.score / best), std::move(by), std::nullopt});
  }
  return out;
}

Result<std::vector<SearchHit>> GraphHits(ReadTxn& txn, const std::vector<EntityGraph::Hit>& hits) {
  std::vector<SearchHit> out;
  for (const EntityGraph::Hit& g : hits) {
    PC_ASSIGN_OR_RETURN(ManifestItem item, LoadHit(txn, g.entry_version_id, true));
    out.push_back(SearchHit{std::move(item), g.score, {"graph"}, std::nullopt});
  }
  return out;
}

constexpr const char* kNoGraph =
    "the memory has no graph: triples come with model extraction (docs/graph.md)";
constexpr size_t kCachedGraphs =
    256;  // memories whose graph stays built; then the cache starts over

// The label of the mode a search was served with.
ops::SearchModeLabel ModeLabel(SearchMode m) {
  switch (m) {
    case SearchMode::kVector:
      return ops::SearchModeLabel::kVector;
    case SearchMode::kHybrid:
      return ops::SearchModeLabel::kHybrid;
    case SearchMode::kGraph:
      return ops::SearchModeLabel::kGraph;
    case SearchMode::kFts:
    case SearchMode::kAuto:
      break;  // a served search never reports auto
  }
  return ops::SearchModeLabel::kFts;
}

}  // namespace

const char* SearchModeName(SearchMode m) {
  switch (m) {
    case SearchMode::kFts:
      return "fts";
    case SearchMode::kVector:
      return "vector";
    case SearchMode::kHybrid:
      return "hybrid";
    case SearchMode::kAuto:
      return "auto";
    case SearchMode::kGraph:
      return "graph";
  }
  return "auto";
}

Result<SearchMode> ParseSearchMode(const std::string& s) {
  for (SearchMode m : {SearchMode::kFts, SearchMode::kVector, SearchMode::kHybrid,
                       SearchMode::kAuto, SearchMode::kGraph})
    if (s == SearchModeName(m)) return m;
  return FieldError("mode", "mode must be fts, vector, hybrid, graph or auto");
}

Result<SearchResult> SearchService::Search(const SearchRequest& req) {
  PC_ASSIGN_OR_RETURN(SearchResult out, SearchWithoutRecording(req, nullptr));
  RecordUsage(store_, req.scope_id, UsagePurpose::kMemoryRecall, UsageOperation::kEmbedding,
              out.query_usage);
  return out;
}

Result<SearchResult> SearchService::SearchWithoutRecording(
    const SearchRequest& req, const std::function<Status(ReadTxn&)>& also) {
  const auto started = std::chrono::steady_clock::now();
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Given(req.scope, req.scope_id));
  Result<SearchResult> out = SearchSnapshot(req, scope, also);
  if (out.ok()) ops::metrics().ObserveSearch(ModeLabel(out->mode_used), ops::SecondsSince(started));
  return out;
}

namespace {

Status CheckSearchRequest(const SearchRequest& req, bool can_rerank) {
  // The spec's query is any non-empty string: one that says nothing (white space, invisible
  // characters) finds nothing, at the head, rather than being refused.
  PC_RETURN_IF_ERROR(CheckOptionalText("query", req.query, kMaxQueryBytes));
  if (req.query.empty()) return FieldError("query", "query is required");
  // Before any read: every path below may end in Rerank (an unknown scope, a query that says
  // nothing). The fuzzer found a rerank of an unknown scope reaching a null reranker.
  if (req.rerank && !can_rerank)
    return Status(Code::kCapabilityUnavailable,
                  "rerank needs a rerank provider; none is configured")
        .WithDetail("field", "rerank");
  if (req.limit < 1 || req.limit > kMaxSearchLimit)
    return FieldError("limit", "limit must be between 1 and " + std::to_string(kMaxSearchLimit));
  if (req.min_similarity && (*req.min_similarity < -1 || *req.min_similarity > 1))
    return FieldError("min_similarity", "min_similarity must be between -1 and 1");
  PC_RETURN_IF_ERROR(CheckMinRevisionValue(req.min_revision));
  if (req.graph_hops < 1 || req.graph_hops > kMaxGraphHops)
    return FieldError("graph_hops",
                      "graph_hops must be between 1 and " + std::to_string(kMaxGraphHops));
  return Status::Ok();
}

// Which mode runs: an explicit mode is never silently changed; auto and hybrid use what is there.
// `gap`: why vectors cannot serve (empty: they can); `projection_gap`: the part of it that is the
// memory's projection, not the provider.
Result<SearchMode> ChooseMode(SearchMode asked, const std::string& gap,
                              const std::string& projection_gap, bool has_graph) {
  SearchMode mode = asked;
  if (mode == SearchMode::kAuto)
    mode = gap.empty() || has_graph ? SearchMode::kHybrid : SearchMode::kFts;
  if (mode == SearchMode::kGraph && !has_graph)
    return Status(Code::kCapabilityUnavailable,
                  std::string("graph search is unavailable: ") + kNoGraph)
        .WithDetail("mode", "graph");
  if ((mode == SearchMode::kVector || (mode == SearchMode::kHybrid && !has_graph)) && !gap.empty())
    return Status(
               projection_gap.empty() ? Code::kProviderUnavailable : Code::kCapabilityUnavailable,
               std::string(SearchModeName(mode)) + " search is unavailable: " + gap)
        .WithDetail("mode", SearchModeName(mode));
  return mode;
}

std::vector<SearchHit> FtsHits(std::vector<ReadTxn::TextHit> text_hits) {
  std::vector<SearchHit> out;
  for (auto& h : text_hits)
    // bm25 is unbounded: s/(1+s) keeps its order within [0, 1).
    out.push_back(SearchHit{std::move(h.item),
                            std::max(0.0, h.score) / (1.0 + std::max(0.0, h.score)),
                            {"fts"},
                            std::nullopt});
  return out;
}

}  // namespace

struct SearchService::Query {
  TextQuery text;
  std::optional<std::vector<float>> vector;
  Status embed_status;  // why there is no vector, when one was asked for
  double min_similarity = kDefaultMinSimilarity;
  int pool = 0;  // how many hits the snapshot yields (a rerank reorders a deeper pool)
};

Result<SearchResult> SearchService::SearchSnapshot(const SearchRequest& req, const ScopeRef& scope,
                                                   const std::function<Status(ReadTxn&)>& also) {
  PC_RETURN_IF_ERROR(CheckSearchRequest(req, reranker_ != nullptr));
  if (!CheckText("query", req.query, kMaxQueryBytes).ok()) {  // says nothing: finds nothing
    SearchResult out;
    PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope));
      PC_RETURN_IF_ERROR(CheckMinRevision(req.min_revision, memory, scope.name()));
      if (memory)
        out.memory = MemoryRef{memory->family, memory->artifact_id, memory->head_revision};
      return also ? also(txn) : Status::Ok();
    }));
    out.mode_used = req.mode == SearchMode::kAuto ? SearchMode::kFts : req.mode;
    return out;
  }
  // The query vector is computed before the snapshot is taken: a slow model never holds it. A
  // failed endpoint is rested by its circuit breaker (providers/resilient.h), so auto searches
  // then fall back to fts at once instead of waiting on it.
  Query q;
  ModelUsage query_usage;
  if (embedder_ && req.mode != SearchMode::kFts && req.mode != SearchMode::kGraph) {
    auto v = embedder_->Embed({req.query}, query_usage);
    if (v.ok() && v->size() == 1)
      q.vector = std::move((*v)[0]);
    else
      q.embed_status = v.ok() ? Internal("the embedder returned no vector") : v.status();
  }
  q.text = req.text ? *req.text : BuildTextQuery(req.query);
  q.min_similarity = req.min_similarity.value_or(kDefaultMinSimilarity);
  q.pool = req.rerank ? std::max(req.limit, kRerankCandidates) : req.limit;
  SearchResult out;
  // One read transaction: the head chosen there is the snapshot every hit comes from.
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    out.hits.clear();
    PC_RETURN_IF_ERROR(SearchIn(txn, scope, req, q, out));
    return also ? also(txn) : Status::Ok();
  }));
  // An entry past its valid_until leaves search at once, before the expiry pass retires it
  // (docs/expiry.md); asked for inactive entries too, it is shown.
  if (!req.include_inactive) {
    const int64_t now = NowMillis();
    std::erase_if(out.hits, [&](const SearchHit& h) { return !ValidAt(h.item.version, now); });
  }
  if (req.rerank && !out.hits.empty()) PC_RETURN_IF_ERROR(Rerank(req.query, out.hits));
  if (out.hits.size() > static_cast<size_t>(req.limit))
    out.hits.resize(static_cast<size_t>(req.limit));
  out.query_usage = query_usage;
  return out;
}

Status SearchService::SearchIn(ReadTxn& txn, const ScopeRef& scope, const SearchRequest& req,
                               const Query& q, SearchResult& out) {
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> found, FindMemory(txn, scope));
  PC_RETURN_IF_ERROR(CheckMinRevision(req.min_revision, found, scope.name()));
  if (!found) return Status::Ok();  // a scope nobody wrote to: nothing to find (memory unset)
  const Artifact& memory = *found;
  out.memory = MemoryRef{memory.family, memory.artifact_id, memory.head_revision};
  PC_ASSIGN_OR_RETURN(ReadTxn::VectorState state, txn.GetVectorState(memory.artifact_id));
  const std::string projection_gap = VectorGap(embedder_, state);
  std::string gap = projection_gap;
  if (gap.empty() && !q.vector && req.mode != SearchMode::kFts && req.mode != SearchMode::kGraph)
    gap = "the embedding provider failed: " + q.embed_status.message();
  std::shared_ptr<const EntityGraph> graph;
  if (req.mode != SearchMode::kFts && req.mode != SearchMode::kVector) {
    PC_ASSIGN_OR_RETURN(graph, GraphAt(txn, memory));
  }
  const bool has_graph = graph && graph->edge_count() > 0;
  PC_ASSIGN_OR_RETURN(const SearchMode mode, ChooseMode(req.mode, gap, projection_gap, has_graph));
  out.mode_used = mode;
  const bool use_vector =
      (mode == SearchMode::kVector || mode == SearchMode::kHybrid) && gap.empty();
  const bool use_graph = (mode == SearchMode::kGraph || mode == SearchMode::kHybrid) && has_graph;

  const int depth = mode == SearchMode::kHybrid ? std::max(q.pool, kFusionDepth) : q.pool;
  std::vector<ReadTxn::TextHit> text_hits;
  if (mode == SearchMode::kFts || mode == SearchMode::kHybrid) {
    TextChannelOptions channel;
    channel.include_inactive = req.include_inactive;
    channel.depth = depth;
    channel.feedback = req.feedback ? &req.feedback_options : nullptr;
    PC_ASSIGN_OR_RETURN(text_hits, SearchTextChannel(txn, memory, q.text, channel));
  }
  std::vector<VectorIndex::Hit> vector_hits;
  if (use_vector) {
    PC_ASSIGN_OR_RETURN(
        vector_hits,
        vectors_.Nearest(txn, memory.artifact_id, memory.head_revision, state.profile, *q.vector,
                         req.include_inactive, q.min_similarity, static_cast<size_t>(depth)));
  }
  std::vector<EntityGraph::Hit> graph_hits;
  if (use_graph) graph_hits = graph->Search(req.query, req.graph_hops, static_cast<size_t>(depth));
  switch (mode) {
    case SearchMode::kFts:
      out.hits = FtsHits(std::move(text_hits));
      return Status::Ok();
    case SearchMode::kVector: {
      PC_ASSIGN_OR_RETURN(out.hits, VectorHits(txn, vector_hits));
      return Status::Ok();
    }
    case SearchMode::kGraph: {
      PC_ASSIGN_OR_RETURN(out.hits, GraphHits(txn, graph_hits));
      return Status::Ok();
    }
    default: {
      PC_ASSIGN_OR_RETURN(out.hits,
                          FuseHits(txn, std::move(text_hits), use_vector ? &vector_hits : nullptr,
                                   use_graph ? &graph_hits : nullptr, q.pool,
                                   embedder_ ? embedder_->convex_fusion_weight() : 0.0));
      return Status::Ok();
    }
  }
}

// Reorders the hits already read from the snapshot (no new reads): order changes, nothing else.
Status SearchService::Rerank(const std::string& query, std::vector<SearchHit>& hits) {
  std::vector<std::string> texts;
  for (const SearchHit& h : hits) texts.push_back(h.item.version.text);
  PC_ASSIGN_OR_RETURN(std::vector<double> scores, reranker_->Score(query, texts));
  if (scores.size() != hits.size())
    return Status(Code::kProviderError, "the reranker scored " + std::to_string(scores.size()) +
                                            " of " + std::to_string(hits.size()) + " hits");
  for (size_t i = 0; i < hits.size(); ++i) hits[i].rerank_score = scores[i];
  std::stable_sort(hits.begin(), hits.end(), [](const SearchHit& a, const SearchHit& b) {
    return *a.rerank_score > *b.rerank_score;
  });
  return Status::Ok();
}

Result<std::string> SearchService::VectorGapIn(ReadTxn& txn, const Artifact& memory) {
  std::string gap = embedder_ ? embedder_->Unavailable() : VectorGap(nullptr, {});
  if (embedder_ && gap.empty()) {
    PC_ASSIGN_OR_RETURN(ReadTxn::VectorState state, txn.GetVectorState(memory.artifact_id));
    gap = VectorGap(embedder_, state);
  }
  return gap;
}

Result<bool> SearchService::VectorsComplete(const std::string& scope_id) {
  std::string gap;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_ASSIGN_OR_RETURN(gap, VectorGapIn(txn, memory));
    return Status::Ok();
  }));
  return gap.empty();
}

Result<std::vector<Capability>> SearchService::Capabilities(const std::string& scope_id) {
  std::string gap = embedder_ ? embedder_->Unavailable() : VectorGap(nullptr, {});
  // Without a scope, the graph depends on the scope: say what it needs.
  std::string graph_gap =
      scope_id.empty() ? "per scope: its memory needs triples from model extraction" : "";
  if (!scope_id.empty()) {
    PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
      PC_ASSIGN_OR_RETURN(gap, VectorGapIn(txn, memory));
      PC_ASSIGN_OR_RETURN(std::shared_ptr<const EntityGraph> graph, GraphAt(txn, memory));
      if (graph->edge_count() == 0) graph_gap = kNoGraph;
      return Status::Ok();
    }));
  }
  const bool hybrid = gap.empty() || graph_gap.empty();
  return std::vector<Capability>{
      {"fts", true, ""},
      {"vector", gap.empty(), gap},
      {"hybrid", hybrid, hybrid ? "" : gap},
      {"rerank", reranker_ != nullptr, reranker_ ? "" : "no rerank provider is configured"},
      {"graph", graph_gap.empty(), graph_gap},
  };
}

Result<std::shared_ptr<const EntityGraph>> SearchService::GraphAt(ReadTxn& txn,
                                                                  const Artifact& memory) {
  CachedGraph base;
  {
    std::lock_guard<std::mutex> lock(graphs_mu_);
    auto it = graphs_.find(memory.artifact_id);
    if (it != graphs_.end() && it->second.revision <= memory.head_revision) base = it->second;
  }
  if (base.graph && base.revision == memory.head_revision) return base.graph;
  // Built outside the lock: two searches of a new head may both build it; the graph is the same.
  // From an older head's graph and what changed since (the cost of the change, not of the memory);
  // from every edge the first time (or for a snapshot older than the cached head).
  std::shared_ptr<const EntityGraph> graph;
  if (base.graph) {
    PC_ASSIGN_OR_RETURN(
        ReadTxn::GraphDelta delta,
        txn.ListGraphChanges(memory.artifact_id, base.revision, memory.head_revision));
    graph = delta.added.empty() && !base.graph->HasAnyVersion(delta.removed_versions)
                ? base.graph
                : std::make_shared<const EntityGraph>(
                      base.graph->Changed(delta.removed_versions, delta.added));
  } else {
    PC_ASSIGN_OR_RETURN(std::vector<GraphEdge> edges,
                        txn.ListGraphEdges(memory.artifact_id, memory.head_revision));
    graph = std::make_shared<const EntityGraph>(edges);
  }
  std::lock_guard<std::mutex> lock(graphs_mu_);
  CachedGraph& slot = graphs_[memory.artifact_id];
  if (slot.graph && slot.revision > memory.head_revision) return graph;  // a newer one is cached
  if (graphs_.size() > kCachedGraphs) {
    graphs_.clear();
    graphs_[memory.artifact_id] = CachedGraph{memory.head_revision, graph};
  } else {
    slot = CachedGraph{memory.head_revision, graph};
  }
  return graph;
}

Result<bool> SearchService::WarmVectors(const std::string& scope_id) {
  bool warmed = false;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    PC_ASSIGN_OR_RETURN(ReadTxn::VectorState state, txn.GetVectorState(memory.artifact_id));
    const int dim = embedder_ ? embedder_->profile().dimension : 0;
    if (dim <= 0 || !VectorGap(embedder_, state).empty()) return Status::Ok();
    std::vector<float> nothing(static_cast<size_t>(dim), 0.0f);  // k = 0: loads, finds nothing
    PC_RETURN_IF_ERROR(vectors_
                           .Nearest(txn, memory.artifact_id, memory.head_revision, state.profile,
                                    nothing, false, -1, 0)
                           .status());
    warmed = true;
    return Status::Ok();
  }));
  return warmed;
}

Result<ReindexResult> SearchService::Reindex(const std::string& scope_id,
                                             const std::atomic<bool>* stop) {
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) { return LoadMemory(txn, scope_id).status(); }));
  if (!embedder_)
    return Status(Code::kCapabilityUnavailable,
                  "no embedding provider is configured (set embed_provider)");
  if (embedder_->profile().dimension == 0)  // learn it first: the profile names the dimension
    PC_RETURN_IF_ERROR(embedder_->Embed({"dimension probe"}).status());
  const std::string profile = embedder_->profile().Key();
  std::string artifact;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope_id));
    artifact = memory.artifact_id;
    PC_ASSIGN_OR_RETURN(ReadTxn::VectorState state, txn.GetVectorState(artifact));
    if (state.profile != profile) PC_RETURN_IF_ERROR(txn.SetVectorProfile(artifact, profile));
    return Status::Ok();
  }));
  vectors_.Invalidate(artifact);
  ReindexResult out;
  std::string after;
  while (!(stop && *stop)) {
    std::vector<EntryVersion> batch;
    PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(batch, txn.VectorBacklog(artifact, after, kReindexBatch));
      return Status::Ok();
    }));
    if (batch.empty()) break;
    after = batch.back().entry_id;
    std::vector<std::string> texts;
    for (const EntryVersion& v : batch) texts.push_back(v.text);
    ModelUsage usage;
    PC_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed(texts, usage));  // outside any transaction
    std::unordered_map<std::string, std::vector<float>> by_version;
    for (size_t i = 0; i < batch.size() && i < vectors.size(); ++i)
      by_version[batch[i].entry_version_id] = std::move(vectors[i]);
    PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) {
      return txn.PutVectors(artifact, profile, by_version);
    }));
    RecordUsage(store_, scope_id, UsagePurpose::kMemoryIndexing, UsageOperation::kEmbedding, usage);
    out.embedded += static_cast<int64_t>(by_version.size());
  }
  // Vectors changed without a revision: the in-memory index and any saved graph are stale. (While
  // the projection is incomplete, vector searches are refused, so nothing loads it meanwhile.)
  vectors_.Invalidate(artifact);
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(ReadTxn::VectorState state, txn.GetVectorState(artifact));
    out.missing = state.missing;
    return Status::Ok();
  }));
  return out;
}

}  // namespace pc
