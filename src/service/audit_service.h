// The audit log (issue 14, docs/security.md). Acknowledged writes record their rows themselves,
// in their own transactions (store/audit_trail.h). Refused requests (401, 403, 429) are recorded
// here, outside the write path: queued (at most kMaxQueued a second; the excess is counted, and
// the count written with the next batch) and written in one transaction a second by a thread of
// their own.
#pragma once

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
#include "service/memory_service.h"
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
