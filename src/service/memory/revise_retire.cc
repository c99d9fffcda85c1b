// Revise and retire: both take an exact citation at the head (invariant 5).
#include <algorithm>

#include "common/clock.h"
#include "common/ids.h"
#include "model/canonical.h"
#include "model/citation.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/memory/commit.h"
#include "service/memory/memory_service.h"
#include "service/memory/new_entry.h"

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

// The version after `current`: its evidence kept, `evidence` added (each once).
EntryVersion NextVersion(const EntryVersion& current, const std::string& kind,
                         const std::string& text, const std::string& hash,
                         const std::vector<std::string>& evidence, const std::string& reason) {
  EntryVersion v;
  v.entry_id = current.entry_id;
  v.entry_version_id = NewId(kEntryVersionPrefix);
  v.version = current.version + 1;
  v.previous_version_id = current.entry_version_id;
  v.kind = kind;
  v.text = text;
  v.content_hash = hash;
  v.source_refs = current.source_refs;
  for (const std::string& e : evidence)
    if (std::find(v.source_refs.begin(), v.source_refs.end(), e) == v.source_refs.end())
      v.source_refs.push_back(e);
  v.reason = reason;
  return v;
}

// The next version's valid_until (docs/expiry.md): what the revise asked for, else
// DefaultValidUntil (a typo fixed keeps a date still ahead).
Result<std::optional<int64_t>> NextValidUntil(const std::string& asked, const WritePolicy& policy,
                                              const std::string& kind,
                                              const EntryVersion& current) {
  const int64_t now = NowMillis();
  if (!asked.empty()) return ValidUntil(asked, policy, kind, now);
  return DefaultValidUntil(policy, kind, &current, now);
}

}  // namespace

Result<WriteOutcome> MemoryService::Revise(const ReviseRequest& req) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Given(req.scope, req.scope_id));
  if (req.kind) PC_RETURN_IF_ERROR(CheckKind(*req.kind));
  PC_RETURN_IF_ERROR(CheckText("text", req.text, limits_.max_entry_bytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("reason", req.reason, limits_.max_reason_bytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("actor", req.actor, limits_.max_actor_bytes));
  PC_RETURN_IF_ERROR(ValidateCitation(req.citation));
  PC_RETURN_IF_ERROR(CheckEvidence(req.evidence));
  PC_RETURN_IF_ERROR(ValidUntil(req.valid_until, {}, "", NowMillis()).status());
  const PreparedWrite prepared =
      PrepareWrite(scope, req.text, ChangeOp::kRevise, req.citation.entry_id);

  WriteOutcome out;
  std::string scope_id;  // internal, for a refusal's audit row
  Status written = store_.WriteFor(
      scope.name(), RequestActor(),
      [&](WriteTxn& txn) -> Status {  // may run more than once (store.h)
        out = WriteOutcome{};
        PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope));
        scope_id = memory.scope_id;
        PC_ASSIGN_OR_RETURN(ManifestItem item, ResolveAtHead(txn, memory, req.citation));
        MemoryRef head{memory.family, memory.artifact_id, memory.head_revision};
        if (!item.active)
          return Conflict("entry " + item.version.entry_id +
                          " is retired; remember the text as a new entry instead")
              .WithDetail("current_revision", head.revision);

        const std::string kind = req.kind.value_or(item.version.kind);
        PC_ASSIGN_OR_RETURN(std::string hash, ContentHash(kind, req.text));
        PC_ASSIGN_OR_RETURN(std::vector<std::string> evidence,
                            ResolveEvidence(txn, memory, req.evidence));
        const bool adds_evidence =
            std::any_of(evidence.begin(), evidence.end(), [&](const std::string& e) {
              return std::find(item.version.source_refs.begin(), item.version.source_refs.end(),
                               e) == item.version.source_refs.end();
            });
        PC_ASSIGN_OR_RETURN(WritePolicy policy, ScopePolicy(txn, memory.scope_id, limits_.policy));
        PC_ASSIGN_OR_RETURN(std::optional<int64_t> valid_until,
                            NextValidUntil(req.valid_until, policy, kind, item.version));
        const bool moves_validity =
            !req.valid_until.empty() && valid_until != item.version.valid_until_ms;
        PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> dup,
                            txn.FindActiveByHash(memory.artifact_id, hash));
        if (dup && dup->version.entry_id == item.version.entry_id &&
            (adds_evidence || moves_validity)) {
          dup.reset();  // the same text with new evidence (a hypothesis promoted) or another
                        // valid_until asked for: the next version records it
        } else if (dup && dup->version.entry_id == item.version.entry_id) {
          out.memory = head;  // same canonical content: no change (invariant 4)
          out.changed = false;
          out.duplicate_of = req.citation;
          return Status::Ok();
        }
        if (dup)
          return Conflict("another active entry already says this; retire one of them instead")
              .WithDetail("duplicate_of", FormatCitation({head, dup->version.entry_id,
                                                          dup->version.entry_version_id}));

        // The write gates (write_gates.h): the revised entry itself is no near-duplicate of its
        // next version.
        if (policy.require_evidence && evidence.empty() && item.version.source_refs.empty())
          return Status(Code::kEvidenceRequired,
                        "this scope requires evidence and the entry has none: give evidence "
                        "(a URL, a source id or a citation)")
              .WithDetail("field", "evidence");
        PC_ASSIGN_OR_RETURN(
            std::vector<NearDuplicate> near,
            Reconcile(txn, policy.reconcile, memory, req.text, prepared.planned.vector,
                      prepared.planned.vector_profile, item.version.entry_id, &prepared.before));

        OneChange change = prepared.planned;
        change.version = NextVersion(item.version, kind, req.text, hash, evidence, req.reason);
        change.version.valid_until_ms = valid_until;
        change.from_version_id = item.version.entry_version_id;
        PC_ASSIGN_OR_RETURN(out, CommitOneChange(txn, memory, req.actor, req.reason, change));
        out.near_duplicates = near;
        return Status::Ok();
      });
  PC_RETURN_IF_ERROR(FinishWrite(store_, written, scope_id, req.scope_id, prepared.usage));
  return out;
}

Result<WriteOutcome> MemoryService::Retire(const RetireRequest& req) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Given(req.scope, req.scope_id));
  PC_RETURN_IF_ERROR(CheckOptionalText("reason", req.reason, limits_.max_reason_bytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("actor", req.actor, limits_.max_actor_bytes));
  PC_RETURN_IF_ERROR(ValidateCitation(req.citation));

  WriteOutcome out;
  PC_RETURN_IF_ERROR(store_.WriteFor(
      scope.name(), RequestActor(),
      [&](WriteTxn& txn) -> Status {  // may run more than once (store.h)
        out = WriteOutcome{};
        PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope));
        PC_ASSIGN_OR_RETURN(ManifestItem item, ResolveAtHead(txn, memory, req.citation));
        if (!item.active)
          return Conflict("entry " + item.version.entry_id + " is already retired")
              .WithDetail("current_revision", memory.head_revision);

        std::string from = item.version.entry_version_id;
        PC_ASSIGN_OR_RETURN(out, CommitOneChange(txn, memory, req.actor, req.reason,
                                                 OneChange{ChangeOp::kRetire,
                                                           std::move(item.version),
                                                           std::move(from),
                                                           {},
                                                           std::nullopt}));
        return Status::Ok();
      }));
  return out;
}

}  // namespace pc
