#include "service/stats_service.h"

#include "service/flush_service.h"  // kExtractionConsumer
#include "service/validation.h"

namespace pc {

Result<ScopedStats> StatsService::Get(const std::string& scope_id, StatsPeriod period, int64_t now_ms) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
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
    PC_ASSIGN_OR_RETURN(inv.memory_processed, txn.GetCursor(id, memory->artifact_id, kExtractionConsumer));
    PC_ASSIGN_OR_RETURN(inv.artifacts_by_family, txn.CountArtifactsByFamily(id));
    PC_ASSIGN_OR_RETURN(inv.entries_by_kind, txn.CountHeadEntriesByKind(memory->artifact_id));
    PC_ASSIGN_OR_RETURN(usage, txn.ListModelUsage(id, out.period.start(), out.period.end()));
    PC_ASSIGN_OR_RETURN(recall, txn.ListRecall(id, kRecallEstimatorId, kRecallEstimatorVersion,
                                               out.period.start(), out.period.end()));
    return Status::Ok();
  }));
  AggregateUsage(out.period, usage, out);
  AggregateRecall(out.period, recall, out);
  return out;
}

}  // namespace pc
