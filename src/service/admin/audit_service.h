// The audit log (issue 14, docs/security.md). Acknowledged writes record their rows themselves,
// in their own transactions (store/audit_trail.h). Refused requests (401, 403, 429) are recorded
// here, outside the write path: queued (at most kMaxQueued a second; the excess is counted, and
// the count written with the next batch) and written in one transaction a second by a thread of
// their own.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "service/core/page.h"
#include "store/store.h"

namespace pc {

struct AuditListRequest {
  std::string scope_id;  // a scope name (key or scp_… id); empty: every scope
  std::string actor;
  int64_t since_ms = 0, until_ms = 0;
  PageRequest page;  // cursor: the seq to continue below
};

struct AuditPage {
  std::vector<AuditRecord> items;
  std::optional<std::string> next_cursor;
};

// How long the audit log keeps its rows (config: audit_retention_days, audit_denied_retention_days,
// audit_denied_max_rows; docs/security.md). Refused requests' rows come at up to 200 a second
// (~17 million a day, ~4 GB), so they have a shorter age and a cap of their own.
struct AuditRetention {
  int64_t days = 90;                  // every row (0: kept for ever)
  int64_t denied_days = 7;            // refused requests' rows (0: as every row)
  int64_t denied_max_rows = 1000000;  // refused requests' rows, newest kept (0: no cap)
  int64_t batch_rows = 1000;          // rows deleted per write transaction
};

class AuditService {
 public:
  static constexpr size_t kMaxQueued = 200;
  explicit AuditService(Store& store);
  ~AuditService();  // writes what is queued, then stops

  Result<AuditPage> List(const AuditListRequest& request);
  // Records the current request's refusal (its actor and request id: auth/request_context.h);
  // never blocks on the store.
  void RecordDenied(std::string_view operation, int http_status, const std::string& reason);
  // Writes what is queued now (tests; the thread does it every second).
  void Flush();
  // Deletes what `retention` no longer keeps as of `now_ms`, in write transactions of at most
  // batch_rows rows each (other writes go between them), until nothing is left to delete or
  // *stop is set; returns how many rows went. A failed batch stops the pass (the next one resumes).
  Result<int64_t> Prune(const AuditRetention& retention, int64_t now_ms,
                        const std::atomic<bool>* stop = nullptr);

 private:
  void Loop();
  Store& store_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<AuditRecord> queued_;
  uint64_t dropped_ = 0;
  bool stopping_ = false;
  std::thread writer_;
};

}  // namespace pc
