#include "service/admin/stats_service.h"

#include <map>

#include "service/core/usage_log.h"
#include "service/core/validation.h"
#include "service/flush/flush_types.h"  // kExtractionConsumer

namespace pc {
namespace {
constexpr int kSessionScanPage = 1000;
}  // namespace

Result<ScopedStats> StatsService::Get(const std::string& scope_id, StatsPeriod period,
                                      int64_t now_ms) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  FlushStatistics(store_);  // what this server has added up and not written yet: read your writes
  ScopedStats out;
  out.scope_id = scope_id;
  out.as_of_ms = now_ms;
  out.period = ResolvePeriod(period, now_ms);
  std::vector<UsageRow> usage;
  std::vector<RecallRow> recall;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    out.inventory = Inventory{};
    usage.clear();
    recall.clear();
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();  // a scope nobody wrote to: zeros
    const std::string& id = memory->scope_id;
    Inventory& inv = out.inventory;
    PC_ASSIGN_OR_RETURN(inv.sources_total, txn.SourceHighWatermark(id));
    PC_ASSIGN_OR_RETURN(inv.memory_processed,
                        txn.GetCursor(id, memory->artifact_id, kExtractionConsumer));
    PC_ASSIGN_OR_RETURN(inv.artifacts_by_family, txn.CountArtifactsByFamily(id));
    PC_ASSIGN_OR_RETURN(inv.entries_by_kind, txn.CountHeadEntriesByKind(memory->artifact_id));
    PC_ASSIGN_OR_RETURN(inv.candidates, txn.CountCandidates(id));
    PC_ASSIGN_OR_RETURN(usage, txn.ListModelUsage(id, out.period.start(), out.period.end()));
    PC_ASSIGN_OR_RETURN(recall, txn.ListRecall(id, kRecallEstimatorId, kRecallEstimatorVersion,
                                               out.period.start(), out.period.end()));
    return Status::Ok();
  }));
  AggregateUsage(out.period, usage, out);
  AggregateRecall(out.period, recall, out);
  return out;
}

Result<SessionStats> StatsService::Sessions(const std::string& scope_id, StatsPeriod period,
                                            int64_t now_ms) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  const ResolvedPeriod p = ResolvePeriod(period, now_ms);
  std::map<std::string, SessionChars> by_session;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    by_session.clear();
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope_id));
    if (!memory) return Status::Ok();
    for (int64_t after = 0;;) {
      PC_ASSIGN_OR_RETURN(std::vector<Source> page,
                          txn.ListSources(memory->scope_id, after, kSessionScanPage));
      for (const Source& s : page) {
        const std::string date = UtcDate(s.created_at_ms);
        if (date < p.start() || date > p.end()) continue;
        std::string session;
        std::array<int64_t, kContextCategories> chars{};
        if (!ContextCharsFromMetadata(s.metadata_json, session, chars)) continue;
        SessionChars& c = by_session[session];
        c.name = session;
        for (size_t i = 0; i < kContextCategories; ++i) c.chars[i] += chars[i];
      }
      if (static_cast<int>(page.size()) < kSessionScanPage) break;
      after = page.back().position;
    }
    return Status::Ok();
  }));
  std::vector<SessionChars> sessions;
  for (auto& [name, c] : by_session) sessions.push_back(std::move(c));
  return Summarize(std::move(sessions));
}

}  // namespace pc
