// The expiry pass (docs/expiry.md): entries past their valid_until are retired as ordinary
// revisions, so history and old citations read exactly as before.
#include <map>

#include "common/clock.h"
#include "service/memory/commit.h"
#include "service/memory/memory_service.h"

namespace pc {
namespace {

// Retires, in one revision of `artifact_id`, those of `due` that are still the active head version
// of their entry and no longer valid now. How many it retired.
Result<int64_t> RetireInOneRevision(Store& store, const std::string& artifact_id,
                                    const std::vector<ReadTxn::ExpiredItem>& due) {
  int64_t retired = 0;
  PC_RETURN_IF_ERROR(store.Write(
      Actor{kExpiryActor, "expire_entries", ""}, [&](WriteTxn& txn) -> Status {  // may run again
        retired = 0;
        PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, txn.FindArtifact(artifact_id));
        if (!memory) return Status::Ok();
        const int64_t now = NowMillis();
        std::vector<OneChange> changes;
        for (const ReadTxn::ExpiredItem& e : due) {
          PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> head,
                              txn.FindManifestItem(artifact_id, memory->head_revision, e.entry_id));
          // Revised or retired since the list was read: the head version decides (a revise may
          // have carried an expired date the list did not see).
          if (!head || !head->active || ValidAt(head->version, now)) continue;
          const std::string from = head->version.entry_version_id;
          changes.push_back(
              OneChange{ChangeOp::kRetire, std::move(head->version), from, {}, std::nullopt});
        }
        if (changes.empty()) return Status::Ok();
        PC_RETURN_IF_ERROR(
            CommitChanges(txn, *memory, kExpiryActor, kExpiryReason, {}, changes).status());
        retired = static_cast<int64_t>(changes.size());
        return Status::Ok();
      }));
  return retired;
}

}  // namespace

Result<ExpiryPass> MemoryService::RetireExpired(int64_t after_ms,
                                                const std::atomic<bool>* stopping) {
  ExpiryPass out;
  out.until_ms = NowMillis();
  int64_t from = after_ms;
  while (!(stopping && *stopping)) {
    std::vector<ReadTxn::ExpiredItem> due;
    PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(due, txn.ListExpired(from, out.until_ms, kExpiryBatch));
      return Status::Ok();
    }));
    std::map<std::string, std::vector<ReadTxn::ExpiredItem>> by_memory;
    for (const ReadTxn::ExpiredItem& e : due) by_memory[e.artifact_id].push_back(e);
    int64_t retired_now = 0;
    for (const auto& [artifact_id, items] : by_memory) {
      Result<int64_t> retired = RetireInOneRevision(store_, artifact_id, items);
      if (!retired.ok()) {
        out.failures.push_back(artifact_id + ": " + retired.status().message());
        continue;
      }
      retired_now += *retired;
      if (*retired > 0) ++out.revisions;
    }
    out.retired += retired_now;
    if (due.size() < static_cast<size_t>(kExpiryBatch)) break;
    // What was retired leaves the list; the next batch reads on from this one's last moment
    // (again at that moment while this batch made progress, for the ones the limit cut off).
    from = retired_now > 0 ? due.back().valid_until_ms - 1 : due.back().valid_until_ms;
  }
  out.complete = out.failures.empty() && !(stopping && *stopping);
  return out;
}

}  // namespace pc
