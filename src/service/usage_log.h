// Best-effort statistics writes (RFC 0072): provider-reported model usage and recall measurements,
// added to the scope's daily aggregates of today's UTC date. One store write, never retried (a
// retry could count twice); a failure is logged and the caller's result stands. The caller records
// only after its request succeeded, so a failed request leaves the store unchanged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/stats.h"
#include "store/store.h"

namespace pc {

struct UsageRecord {
  UsagePurpose purpose = UsagePurpose::kMemoryExtraction;
  UsageOperation operation = UsageOperation::kGeneration;
  ModelUsage usage;
};

// `scope_name` is the caller's scope id or key. A scope that does not exist records nothing (reads
// never create scopes); empty usage records nothing; with nothing to record there is no write.
void RecordStatistics(Store& store, const std::string& scope_name, const std::vector<UsageRecord>& usage,
                      const std::optional<RecallMeasurement>& recall = std::nullopt);

inline void RecordUsage(Store& store, const std::string& scope_name, UsagePurpose purpose,
                        UsageOperation operation, const ModelUsage& usage) {
  RecordStatistics(store, scope_name, {{purpose, operation, usage}});
}

}  // namespace pc
