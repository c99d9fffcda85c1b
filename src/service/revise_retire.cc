// Revise and retire: both take an exact citation at the head (invariant 5).
#include "common/ids.h"
#include "model/canonical.h"
#include "model/citation.h"
#include "service/commit.h"
#include "service/memory_service.h"
#include "service/usage_log.h"
#include "service/validation.h"

namespace pc {
namespace {

// Resolves a citation to the head's manifest line: 404 if it was never issued, 409 if the memory
// has moved past it (even when this entry did not change), so nobody edits from a stale view.
Result<ManifestItem> ResolveAtHead(ReadTxn& txn, const Artifact& memory, const Citation& c) {
  PC_RETURN_IF_ERROR(ValidateCitation(c));
  PC_RETURN_IF_ERROR(CheckCitationInMemory(c, memory));
  PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> cited,
                      txn.FindManifestItem(memory.artifact_id, c.memory.revision, c.entry_id));
  if (!cited || cited->version.entry_version_id != c.entry_version_id)
    return NotFound("citation " + FormatCitation(c) + " does not exist");
  if (c.memory.revision != memory.head_revision)
    return Conflict("citation is at revision " + std::to_string(c.memory.revision) +
                    " but the memory is at revision " + std::to_string(memory.head_revision) +
                    "; list the entries again and cite the current version")
        .WithDetail("current_revision", memory.head_revision);
  return *cited;
}

}  // namespace

Result<WriteOutcome> MemoryService::Revise(const ReviseRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  if (req.kind) PC_RETURN_IF_ERROR(CheckKind(*req.kind));
  PC_RETURN_IF_ERROR(CheckText("text", req.text, limits_.max_entry_bytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("reason", req.reason, limits_.max_reason_bytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("actor", req.actor, limits_.max_actor_bytes));
  PC_RETURN_IF_ERROR(ValidateCitation(req.citation));
  OneChange planned{ChangeOp::kRevise, {}, std::nullopt, {}, std::nullopt};
  ModelUsage usage;
  Embed(req.text, planned.vector_profile, planned.vector, usage);

  WriteOutcome out;
  PC_RETURN_IF_ERROR(store_.Write([&](WriteTxn& txn) -> Status {  // may run more than once (store.h)
    out = WriteOutcome{};
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, req.scope_id));
    PC_ASSIGN_OR_RETURN(ManifestItem item, ResolveAtHead(txn, memory, req.citation));
    MemoryRef head{memory.family, memory.artifact_id, memory.head_revision};
    if (!item.active)
      return Conflict("entry " + item.version.entry_id +
                      " is retired; remember the text as a new entry instead")
          .WithDetail("current_revision", head.revision);

    const std::string kind = req.kind.value_or(item.version.kind);
    PC_ASSIGN_OR_RETURN(std::string hash, ContentHash(kind, req.text));
    PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> dup, txn.FindActiveByHash(memory.artifact_id, hash));
    if (dup && dup->version.entry_id == item.version.entry_id) {
      out.memory = head;  // same canonical content: no change (invariant 4)
      out.changed = false;
      out.duplicate_of = req.citation;
      return Status::Ok();
    }
    if (dup)
      return Conflict("another active entry already says this; retire one of them instead")
          .WithDetail("duplicate_of",
                      FormatCitation({head, dup->version.entry_id, dup->version.entry_version_id}));

    OneChange change = planned;
    EntryVersion& v = change.version;
    v.entry_id = item.version.entry_id;
    v.entry_version_id = NewId(kEntryVersionPrefix);
    v.version = item.version.version + 1;
    v.previous_version_id = item.version.entry_version_id;
    v.kind = kind;
    v.text = req.text;
    v.content_hash = hash;
    v.source_refs = item.version.source_refs;
    v.reason = req.reason;
    change.from_version_id = item.version.entry_version_id;
    PC_ASSIGN_OR_RETURN(out, CommitOneChange(txn, memory, req.actor, req.reason, change));
    return Status::Ok();
  }));
  RecordUsage(store_, req.scope_id, UsagePurpose::kMemoryIndexing, UsageOperation::kEmbedding, usage);
  return out;
}

Result<WriteOutcome> MemoryService::Retire(const RetireRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  PC_RETURN_IF_ERROR(CheckOptionalText("reason", req.reason, limits_.max_reason_bytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("actor", req.actor, limits_.max_actor_bytes));
  PC_RETURN_IF_ERROR(ValidateCitation(req.citation));

  WriteOutcome out;
  PC_RETURN_IF_ERROR(store_.Write([&](WriteTxn& txn) -> Status {  // may run more than once (store.h)
    out = WriteOutcome{};
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, req.scope_id));
    PC_ASSIGN_OR_RETURN(ManifestItem item, ResolveAtHead(txn, memory, req.citation));
    if (!item.active)
      return Conflict("entry " + item.version.entry_id + " is already retired")
          .WithDetail("current_revision", memory.head_revision);

    std::string from = item.version.entry_version_id;
    PC_ASSIGN_OR_RETURN(out, CommitOneChange(txn, memory, req.actor, req.reason,
                                             OneChange{ChangeOp::kRetire, std::move(item.version),
                                                       std::move(from), {}, std::nullopt}));
    return Status::Ok();
  }));
  return out;
}

}  // namespace pc
