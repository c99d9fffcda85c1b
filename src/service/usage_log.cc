#include "service/usage_log.h"

#include <iostream>

#include "common/clock.h"
#include "service/validation.h"

namespace pc {

void RecordStatistics(Store& store, const std::string& scope_name, const std::vector<UsageRecord>& usage,
                      const std::optional<RecallMeasurement>& recall) {
  bool any = recall.has_value();
  for (const UsageRecord& r : usage) any = any || !r.usage.empty();
  if (!any) return;
  const std::string date = UtcDate(NowMillis());
  Status s = store.Write([&](WriteTxn& txn) -> Status {  // may run more than once (store.h)
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, scope_name));
    if (!scope) return Status::Ok();
    for (const UsageRecord& r : usage)
      if (!r.usage.empty())
        PC_RETURN_IF_ERROR(txn.AddModelUsage(scope->scope_id, date, UsagePurposeName(r.purpose),
                                             UsageOperationName(r.operation), r.usage));
    if (recall)
      PC_RETURN_IF_ERROR(txn.AddRecall(scope->scope_id, date, kRecallEstimatorId, kRecallEstimatorVersion, *recall));
    return Status::Ok();
  });
  if (!s.ok())
    std::cerr << "powercontext: warning: statistics not recorded (" << s.message() << ")" << std::endl;
}

}  // namespace pc
