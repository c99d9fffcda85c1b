// Best-effort statistics writes (RFC 0072): provider-reported model usage and recall measurements,
// added to the scope's daily aggregates of the UTC date they happened on. Never retried (a retry
// could count twice); a failure is logged and the caller's result stands. The caller records only
// after its request succeeded, so a failed request leaves the store unchanged.
//
// Deferred (serve, DeferStatistics): RecordStatistics only adds to totals kept in memory, and
// FlushStatistics writes all of them in one transaction, once a second, so a read (a search, a
// prepare) never waits for a commit or pays an fsync for its statistics, and a read-only token's
// requests leave the database as it was between flushes. A crash loses at most the last interval.
// Not deferred (tests, one-shot commands): RecordStatistics writes at once.
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
void RecordStatistics(Store& store, const std::string& scope_name,
                      const std::vector<UsageRecord>& usage,
                      const std::optional<RecallMeasurement>& recall = std::nullopt);

// Whether `store`'s statistics are kept in memory until FlushStatistics (false: written at once).
// Turning it off flushes what is pending.
void DeferStatistics(Store& store, bool defer);
// Writes `store`'s pending statistics in one transaction (nothing pending: no write). Readers of
// statistics call it first, so they read their own writes.
void FlushStatistics(Store& store);

inline void RecordUsage(Store& store, const std::string& scope_name, UsagePurpose purpose,
                        UsageOperation operation, const ModelUsage& usage) {
  RecordStatistics(store, scope_name, {{purpose, operation, usage}});
}

}  // namespace pc
