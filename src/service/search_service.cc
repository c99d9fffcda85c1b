#include "service/search_service.h"

#include "common/utf8.h"
#include "search/text_query.h"
#include "service/validation.h"

namespace pc {

const char* SearchModeName(SearchMode m) {
  switch (m) {
    case SearchMode::kFts: return "fts";
    case SearchMode::kVector: return "vector";
    case SearchMode::kHybrid: return "hybrid";
    case SearchMode::kAuto: return "auto";
  }
  return "auto";
}

Result<SearchMode> ParseSearchMode(const std::string& s) {
  for (SearchMode m : {SearchMode::kFts, SearchMode::kVector, SearchMode::kHybrid, SearchMode::kAuto})
    if (s == SearchModeName(m)) return m;
  return InvalidArgument("mode must be fts, vector, hybrid or auto").WithDetail("field", "mode");
}

Result<SearchResult> SearchService::Search(const SearchRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  PC_RETURN_IF_ERROR(CheckText("query", req.query, kMaxQueryBytes));
  if (req.limit < 1 || req.limit > kMaxSearchLimit)
    return InvalidArgument("limit must be between 1 and " + std::to_string(kMaxSearchLimit))
        .WithDetail("field", "limit");
  if (req.min_similarity && (*req.min_similarity < -1 || *req.min_similarity > 1))
    return InvalidArgument("min_similarity must be between -1 and 1").WithDetail("field", "min_similarity");
  if (req.mode == SearchMode::kVector || req.mode == SearchMode::kHybrid)
    return Status(Code::kCapabilityUnavailable,
                  std::string(SearchModeName(req.mode)) +
                      " search needs an embedding provider; none is configured (use mode fts or auto)")
        .WithDetail("mode", SearchModeName(req.mode));

  TextQuery text = BuildTextQuery(req.query);
  SearchResult out;
  out.mode_used = SearchMode::kFts;
  // One read transaction: the head chosen here is the snapshot every hit comes from.
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, req.scope_id));
    out.memory = MemoryRef{memory.family, memory.artifact_id, memory.head_revision};
    PC_ASSIGN_OR_RETURN(auto hits, txn.SearchText(memory.artifact_id, text, req.include_inactive,
                                                  req.limit));
    for (auto& h : hits) out.hits.push_back(SearchHit{std::move(h.item), h.score, {"fts"}});
    return Status::Ok();
  }));
  return out;
}

}  // namespace pc
