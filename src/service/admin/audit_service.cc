#include "service/admin/audit_service.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "service/core/actor.h"
#include "service/core/validation.h"

namespace pc {

AuditService::AuditService(Store& store) : store_(store), writer_([this] { Loop(); }) {}

AuditService::~AuditService() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  writer_.join();
  Flush();
}

Result<AuditPage> AuditService::List(const AuditListRequest& r) {
  PC_RETURN_IF_ERROR(CheckPage(r.page));
  AuditQuery q;
  q.actor = r.actor;
  q.since_ms = r.since_ms;
  q.until_ms = r.until_ms;
  q.limit = r.page.limit + 1;
  if (!r.page.cursor.empty()) {
    PC_ASSIGN_OR_RETURN(q.before_seq, ParseIntCursor(r.page.cursor));
  }
  AuditPage out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    out.items.clear();
    if (!r.scope_id.empty()) {
      PC_RETURN_IF_ERROR(CheckScopeId(r.scope_id));
      PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, r.scope_id));
      if (!scope) return Status::Ok();  // a scope nobody wrote to has no audit rows
      q.scope_id = scope->scope_id;
    }
    PC_ASSIGN_OR_RETURN(out.items, txn.ListAudit(q));
    return Status::Ok();
  }));
  if (out.items.size() > static_cast<size_t>(r.page.limit)) {
    out.items.resize(static_cast<size_t>(r.page.limit));
    out.next_cursor = std::to_string(out.items.back().seq);
  }
  return out;
}

void AuditService::RecordDenied(std::string_view operation, int http_status,
                                const std::string& reason) {
  const Actor actor = RequestActor();
  nlohmann::json targets{{"status", http_status}};
  if (!reason.empty()) targets["reason"] = reason;
  AuditRecord row = AuditRowFor(actor, "denied");
  row.operation = std::string(operation);  // the route's, refused before it ran
  row.targets_json = targets.dump();
  std::lock_guard<std::mutex> lock(mu_);
  if (queued_.size() >= kMaxQueued) {
    ++dropped_;
    return;
  }
  queued_.push_back(std::move(row));
}

void AuditService::Flush() {
  std::vector<AuditRecord> rows;
  uint64_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    rows.swap(queued_);
    std::swap(dropped, dropped_);
  }
  if (dropped > 0)
    rows.push_back(AuditRecord{0, NowMillis(), "system", "audit", "",
                               "{\"dropped_denials\": " + std::to_string(dropped) + "}", "dropped",
                               ""});
  if (rows.empty()) return;
  Status written = store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    for (const AuditRecord& row : rows) PC_RETURN_IF_ERROR(txn.AppendAudit(row));
    return Status::Ok();
  });
  if (!written.ok()) {  // counted, and the count written with the next batch
    std::lock_guard<std::mutex> lock(mu_);
    dropped_ += rows.size() - (dropped > 0 ? 1 : 0) + dropped;
  }
}

Result<int64_t> AuditService::Prune(const AuditRetention& r, int64_t now_ms,
                                    const std::atomic<bool>* stop) {
  constexpr int64_t kDayMs = 86400000;
  if (r.days < 0 || r.denied_days < 0 || r.denied_max_rows < 0 || r.batch_rows < 1)
    return InvalidArgument("audit retention values are 0 or more, and the batch at least 1 row");
  AuditPrune prune;
  prune.before_ms = r.days > 0 ? now_ms - r.days * kDayMs : 0;
  prune.denied_before_ms = r.denied_days > 0 ? now_ms - r.denied_days * kDayMs : 0;
  prune.denied_keep = r.denied_max_rows;
  prune.limit = r.batch_rows;
  if (prune.before_ms == 0 && prune.denied_before_ms == 0 && prune.denied_keep == 0)
    return int64_t{0};
  int64_t total = 0;
  while (!(stop && stop->load())) {
    int64_t deleted = 0;
    PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(deleted, txn.PruneAudit(prune));
      return Status::Ok();
    }));
    total += deleted;
    if (deleted < prune.limit) break;  // caught up
  }
  return total;
}

void AuditService::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::seconds(1));
    if (stopping_) break;
    lock.unlock();
    Flush();
    lock.lock();
  }
}

}  // namespace pc
