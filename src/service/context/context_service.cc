#include "service/context/context_service.h"

#include <iostream>
#include <map>
#include <set>

#include "model/citation.h"
#include "search/text_query.h"
#include "service/core/usage_log.h"
#include "service/core/validation.h"
#include "service/handoff/handoff_service.h"
#include "service/review/review_service.h"

namespace pc {
namespace {

// The exact sources each selectable item stands on: a memory entry's source_refs, an Experience
// item (a source itself). A handoff has none here: its claims cite evidence, not one source text.
using SourceRefsByItem = std::map<std::string, std::vector<std::string>>;

// RFC 0072's recall measurement of one preparation, after selection and truncation: comparable
// when ready and every selected item resolves to at least one source of the scope's log. Reads
// the sources (append-only) in a read transaction of its own; never changes the result.
RecallMeasurement MeasureRecall(Store& store, const ScopeRef& scope, const PreparedContext& out,
                                const SourceRefsByItem& refs) {
  RecallMeasurement m;
  m.preparations = 1;
  if (!out.ready) return m;
  m.ready_preparations = 1;
  std::set<std::string> wanted;  // de-duplicated and sorted, as the RFC asks
  for (const ContextItem& item : out.items) {
    auto it = refs.find(item.ref);
    if (it == refs.end() || it->second.empty()) return m;  // material without source lineage
    wanted.insert(it->second.begin(), it->second.end());
  }
  int64_t baseline = 0;
  std::set<std::string> resolved;
  Status read = store.Read([&](ReadTxn& txn) -> Status {
    baseline = 0;
    resolved.clear();
    PC_ASSIGN_OR_RETURN(std::optional<ScopeIds> ids, scope.Find(txn));
    if (!ids) return Status::Ok();
    for (const std::string& ref : wanted) {
      std::optional<SourceRefParts> parts = ParseSourceRef(ref);
      if (!parts) continue;
      PC_ASSIGN_OR_RETURN(auto found, txn.ListSources(ids->id, parts->position - 1, 1));
      if (found.empty() || SourceRef(found[0]) != ref) continue;
      baseline += EstimateTokens(found[0].content);
      resolved.insert(ref);
    }
    return Status::Ok();
  });
  if (!read.ok()) {
    std::cerr << "powercontext: warning: recall not measured (" << read.message() << ")"
              << std::endl;
    return m;
  }
  for (const ContextItem& item : out.items) {  // every item needs one source that resolved
    const auto& mine = refs.at(item.ref);
    if (std::none_of(mine.begin(), mine.end(),
                     [&](const std::string& r) { return resolved.count(r) > 0; }))
      return m;
  }
  m.comparable_preparations = 1;
  m.baseline_tokens = baseline;
  m.recalled_tokens = EstimateTokens(out.content);
  return m;
}

// The Experience candidates of a preparation, read in its snapshot: reviewed Experience first
// (RFC 0050: approved heads only), then the source log's; with the sources each stands on.
Status AddExperiences(ReadTxn& txn, const std::string& scope_id, const AnalyzedQuery& query,
                      std::vector<ContextCandidate>& experiences, SourceRefsByItem& source_refs) {
  PC_ASSIGN_OR_RETURN(auto sources, txn.SearchSources(scope_id, query.text,
                                                      static_cast<int>(kExperienceCandidates)));
  PC_ASSIGN_OR_RETURN(std::vector<Experience> heads,
                      txn.ListExperienceHeads(scope_id, kMaxExperienceScan));
  for (ExperienceHit& hit : RankExperiences(std::move(heads), query.terms, kExperienceCandidates)) {
    const std::string ref = FormatMemoryRef(hit.experience.ref);
    experiences.push_back(
        {ContextItemType::kExperience, ref, kExperienceFamily,
         ExperienceText(hit.experience.content), hit.score,
         "\"kind\":\"experience\",\"artifact_ref\":" + ArtifactRefJson(hit.experience.ref)});
    std::vector<std::string>& refs = source_refs[ref];
    for (const SourceEvidence& e : hit.experience.evidence.sources) {
      PC_ASSIGN_OR_RETURN(std::optional<Source> s, txn.FindSourceByPublicId(scope_id, e.source_id));
      if (s) refs.push_back(SourceRef(*s));
    }
  }
  for (const ReadTxn::SourceHit& s : sources) {
    experiences.push_back({ContextItemType::kExperience, SourceRef(s.source), s.source.kind,
                           s.source.content, s.score,
                           "\"source_ref\":" + SourceRefJsonText(s.source)});
    source_refs[SourceRef(s.source)] = {SourceRef(s.source)};
  }
  return Status::Ok();
}

}  // namespace

Result<PreparedContext> ContextService::Prepare(const PrepareRequest& req) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Given(req.scope, req.scope_id));
  PC_RETURN_IF_ERROR(CheckText("query", req.query, kMaxQueryBytes));
  if (req.max_bytes < static_cast<int64_t>(kMinContextBytes) ||
      req.max_bytes > static_cast<int64_t>(kMaxContextBytes))
    return FieldError("max_bytes", "max_bytes must be between " + std::to_string(kMinContextBytes) +
                                       " and " + std::to_string(kMaxContextBytes));
  // One snapshot for everything: the handoff and Experience are read in the search's own read
  // transaction, so a write between them can never pair memory of one state with a handoff of
  // another. The memory items are placed after the search (a rerank may reorder them).
  // The query is analyzed once: memory and source full text and Experience ranking share it.
  const AnalyzedQuery query = AnalyzeQuery(req.query);
  std::optional<ContextCandidate> handoff;
  std::vector<ContextCandidate> experiences;
  SourceRefsByItem source_refs;
  auto also = [&](ReadTxn& txn) -> Status {
    handoff.reset();
    experiences.clear();
    source_refs.clear();
    PC_ASSIGN_OR_RETURN(std::optional<ScopeIds> ids, scope.Find(txn));  // the search's lookup
    if (!ids) return Status::Ok();  // a scope nobody wrote to: an empty context
    if (req.include_handoff) {
      PC_ASSIGN_OR_RETURN(std::optional<Handoff> h, LatestHandoff(txn, ids->id));
      if (h)
        handoff = ContextCandidate{ContextItemType::kHandoff,
                                   FormatMemoryRef(h->ref),
                                   "",
                                   HandoffText(*h),
                                   0,
                                   "\"artifact_ref\":" + ArtifactRefJson(h->ref)};
    }
    return AddExperiences(txn, ids->id, query, experiences, source_refs);
  };
  SearchRequest search;
  search.scope_id = req.scope_id;
  search.query = req.query;
  search.mode = req.mode;
  search.limit = static_cast<int>(kMemoryCandidates);
  search.rerank = req.rerank;
  search.min_revision = req.min_revision;
  search.text = query.text;
  search.scope = &scope;
  PC_ASSIGN_OR_RETURN(SearchResult found, search_.SearchWithoutRecording(search, also));
  std::vector<ContextCandidate> candidates;
  if (handoff) candidates.push_back(std::move(*handoff));
  for (const SearchHit& hit : found.hits) {
    const Citation c{found.memory, hit.item.version.entry_id, hit.item.version.entry_version_id};
    // A hypothesis says so in the content (write_gates.h): nothing it stands on is recorded.
    const std::string marker =
        IsHypothesis(hit.item.version.source_refs) ? "\"hypothesis\":true," : "";
    candidates.push_back({ContextItemType::kMemory, FormatCitation(c), hit.item.version.kind,
                          hit.item.version.text, hit.score,
                          marker + "\"citation\":" + CitationJson(c)});
    source_refs[candidates.back().ref] = hit.item.version.source_refs;
  }
  for (ContextCandidate& e : experiences) candidates.push_back(std::move(e));
  BuiltContext built = BuildContext(candidates, static_cast<size_t>(req.max_bytes));
  PreparedContext out;
  out.ready = !built.content.empty();
  out.content = std::move(built.content);
  out.items = std::move(built.items);
  out.memory = found.memory;
  out.mode_used = found.mode_used;
  // The only write of a preparation, best-effort: its statistics (RFC 0072).
  RecordStatistics(store_, req.scope_id,
                   {{UsagePurpose::kMemoryRecall, UsageOperation::kEmbedding, found.query_usage}},
                   MeasureRecall(store_, scope, out, source_refs));
  return out;
}

}  // namespace pc
