#include "service/memory/new_entry.h"

#include "common/clock.h"
#include "common/ids.h"
#include "service/core/usage_log.h"
#include "service/core/validation.h"

namespace pc {

Status CheckNewEntry(const RememberRequest& req, const ServiceLimits& limits) {
  PC_RETURN_IF_ERROR(CheckKind(req.kind));
  PC_RETURN_IF_ERROR(CheckText("text", req.text, limits.max_entry_bytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("reason", req.reason, limits.max_reason_bytes));
  PC_RETURN_IF_ERROR(ValidUntil(req.valid_until, {}, req.kind, NowMillis()).status());
  return CheckEvidence(req.evidence);
}

Status CheckExpectedRevision(const std::optional<int64_t>& expected, int64_t head_revision) {
  if (!expected || *expected == head_revision) return Status::Ok();
  return Conflict("expected revision " + std::to_string(*expected) +
                  " but the memory is at revision " + std::to_string(head_revision) +
                  "; read it again and decide with the current state")
      .WithDetail("current_revision", head_revision);
}

Result<ResolvedEntry> ResolveNewEntry(ReadTxn& txn, const Artifact& memory,
                                      const RememberRequest& req, const std::string& content_hash) {
  ResolvedEntry out;
  // Evidence is checked first: a bad reference is a 422 even when the text is already there.
  // Evidence for an existing text is added by revising that entry (write_gates.h).
  PC_ASSIGN_OR_RETURN(out.evidence, ResolveEvidence(txn, memory, req.evidence));
  PC_ASSIGN_OR_RETURN(out.duplicate, txn.FindActiveByHash(memory.artifact_id, content_hash));
  if (out.duplicate && !ValidAt(out.duplicate->version, NowMillis())) {
    out.expired = std::move(out.duplicate);
    out.duplicate.reset();
  }
  return out;
}

std::optional<OneChange> RetireExpiredTwin(const ResolvedEntry& resolved) {
  if (!resolved.expired) return std::nullopt;
  const EntryVersion& v = resolved.expired->version;
  return OneChange{ChangeOp::kRetire, v, v.entry_version_id, {}, std::nullopt};
}

Result<std::vector<NearDuplicate>> GateNewEntry(WriteTxn& txn, const WritePolicy& policy,
                                                const Artifact& memory, const RememberRequest& req,
                                                const std::string& content_hash,
                                                std::vector<std::string> evidence,
                                                OneChange& change, const ReconcileLookup* before) {
  if (policy.require_evidence && evidence.empty())
    return Status(Code::kEvidenceRequired,
                  "this scope requires evidence: give evidence (a URL, a source id or a "
                  "citation) for what the entry says")
        .WithDetail("field", "evidence");
  PC_ASSIGN_OR_RETURN(std::vector<NearDuplicate> near,
                      Reconcile(txn, policy.reconcile, memory, req.text, change.vector,
                                change.vector_profile, "", before));
  PC_ASSIGN_OR_RETURN(std::optional<int64_t> valid_until,
                      ValidUntil(req.valid_until, policy, req.kind, NowMillis()));
  change.op = ChangeOp::kAdd;
  EntryVersion& v = change.version;
  v.valid_until_ms = valid_until;
  v.entry_id = NewId(kEntryPrefix);
  v.entry_version_id = NewId(kEntryVersionPrefix);
  v.version = 1;
  v.kind = req.kind;
  v.text = req.text;
  v.content_hash = content_hash;
  v.reason = req.reason;
  v.source_refs = std::move(evidence);
  return near;
}

Status FinishWrite(Store& store, const Status& written, const std::string& scope_id,
                   const std::string& scope_named, const ModelUsage& usage) {
  if (!written.ok()) {
    if (IsGateRefusal(written)) RecordRefusal(store, scope_id, written);
    return written;
  }
  RecordUsage(store, scope_named, UsagePurpose::kMemoryIndexing, UsageOperation::kEmbedding, usage);
  return written;
}

}  // namespace pc
