#include "service/context_service.h"

#include "model/citation.h"
#include "search/text_query.h"
#include "service/handoff_service.h"
#include "service/validation.h"

namespace pc {

Result<PreparedContext> ContextService::Prepare(const PrepareRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  PC_RETURN_IF_ERROR(CheckText("query", req.query, kMaxQueryBytes));
  if (req.max_bytes < static_cast<int64_t>(kMinContextBytes) ||
      req.max_bytes > static_cast<int64_t>(kMaxContextBytes))
    return InvalidArgument("max_bytes must be between " + std::to_string(kMinContextBytes) + " and " +
                           std::to_string(kMaxContextBytes))
        .WithDetail("field", "max_bytes");
  // Memory: the search's own snapshot; every memory item cites that revision.
  PC_ASSIGN_OR_RETURN(SearchResult found,
                      search_.Search({req.scope_id, req.query, req.mode,
                                      static_cast<int>(kMemoryCandidates), false, std::nullopt}));
  std::vector<ContextCandidate> candidates;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, req.scope_id));
    if (!scope) return Status::Ok();  // a scope nobody wrote to: an empty context
    if (req.include_handoff) {
      PC_ASSIGN_OR_RETURN(std::optional<Handoff> h, LatestHandoff(txn, scope->scope_id));
      if (h) candidates.push_back({ContextItemType::kHandoff, FormatMemoryRef(h->ref), "", HandoffText(*h),
                                   0, "\"artifact_ref\":" + ArtifactRefJson(h->ref)});
    }
    PC_ASSIGN_OR_RETURN(auto experience, txn.SearchSources(scope->scope_id, BuildTextQuery(req.query),
                                                           static_cast<int>(kExperienceCandidates)));
    for (const SearchHit& hit : found.hits) {
      const Citation c{found.memory, hit.item.version.entry_id, hit.item.version.entry_version_id};
      candidates.push_back({ContextItemType::kMemory, FormatCitation(c), hit.item.version.kind,
                            hit.item.version.text, hit.score, "\"citation\":" + CitationJson(c)});
    }
    for (const ReadTxn::SourceHit& s : experience)
      candidates.push_back({ContextItemType::kExperience, SourceRef(s.source), s.source.kind,
                            s.source.content, s.score, "\"source_ref\":" + SourceRefJsonText(s.source)});
    return Status::Ok();
  }));
  BuiltContext built = BuildContext(candidates, static_cast<size_t>(req.max_bytes));
  PreparedContext out;
  out.ready = !built.content.empty();
  out.content = std::move(built.content);
  out.items = std::move(built.items);
  out.memory = found.memory;
  out.mode_used = found.mode_used;
  return out;
}

}  // namespace pc
