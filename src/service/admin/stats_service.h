// GET /v1/stats (RFC 0072): a scope's current inventory, the model usage providers reported, and
// the recall token estimate over a period of UTC days — all from one read transaction. A scope
// nobody wrote to answers zeros and empty breakdowns; reading never creates a scope or moves a
// cursor.
#pragma once

#include <string>

#include "common/status.h"
#include "model/stats.h"
#include "session/session_stats.h"
#include "store/store.h"

namespace pc {

class StatsService {
 public:
  explicit StatsService(Store& store) : store_(store) {}
  // `scope_id` as the caller names the scope (checked like every scope id); `now_ms` is as_of.
  // Thread-safe.
  Result<ScopedStats> Get(const std::string& scope_id, StatsPeriod period, int64_t now_ms);
  // Where the scope's captured sessions' context went (session_stats.h): the transcript turns the
  // host hooks captured in the period, added up per session from their sources' metadata. Reads
  // the scope's source log; only on request (GET /v1/stats?sessions=true).
  Result<SessionStats> Sessions(const std::string& scope_id, StatsPeriod period, int64_t now_ms);

 private:
  Store& store_;
};

}  // namespace pc
