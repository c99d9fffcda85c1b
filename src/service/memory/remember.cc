#include "common/ids.h"
#include "model/canonical.h"
#include "search/embedder.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/memory/commit.h"
#include "service/memory/memory_service.h"
#include "service/memory/new_entry.h"

namespace pc {

Result<WriteOutcome> MemoryService::Remember(const RememberRequest& req) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Given(req.scope, req.scope_id));
  PC_RETURN_IF_ERROR(CheckNewEntry(req, limits_));
  PC_RETURN_IF_ERROR(CheckOptionalText("actor", req.actor, limits_.max_actor_bytes));
  if (req.expected_revision &&
      *req.expected_revision < 1)  // the spec's minimum: a revision that exists
    return FieldError(
        "expected_revision",
        "expected_revision must be 1 or more (leave it out for a memory with no revision "
        "yet)");
  PC_ASSIGN_OR_RETURN(std::string hash, ContentHash(req.kind, req.text));
  const PreparedWrite prepared = PrepareWrite(scope, req.text, ChangeOp::kAdd, "");

  WriteOutcome out;
  std::string scope_id;  // internal, for a refusal's audit row
  Status written = store_.WriteFor(
      scope.name(), RequestActor(),
      [&](WriteTxn& txn) -> Status {  // may run more than once (store.h)
        out = WriteOutcome{};
        txn.ExpectActiveByHash(hash);  // ResolveNewEntry's question, asked with the lock
        PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemoryForWrite(txn, scope));  // a key is created
        // A refusal rolls a new scope back too: its audit row then names no scope.
        scope_id = txn.audit_trail().created_scope ? "" : memory.scope_id;
        MemoryRef head{memory.family, memory.artifact_id, memory.head_revision};
        PC_RETURN_IF_ERROR(CheckExpectedRevision(req.expected_revision, head.revision));
        PC_ASSIGN_OR_RETURN(ResolvedEntry entry, ResolveNewEntry(txn, memory, req, hash));
        if (entry.duplicate) {
          out.memory = head;
          out.changed = false;
          out.duplicate_of = Citation{head, entry.duplicate->version.entry_id,
                                      entry.duplicate->version.entry_version_id};
          return Status::Ok();
        }
        // The write gates (write_gates.h), after the exact-duplicate answer above.
        PC_ASSIGN_OR_RETURN(WritePolicy policy, ScopePolicy(txn, memory.scope_id, limits_.policy));
        OneChange change = prepared.planned;
        std::optional<OneChange> retire = RetireExpiredTwin(entry);
        PC_ASSIGN_OR_RETURN(std::vector<NearDuplicate> near,
                            GateNewEntry(txn, policy, memory, req, hash, std::move(entry.evidence),
                                         change, &prepared.before));
        if (retire) {
          std::vector<OneChange> changes{*retire, change};
          PC_ASSIGN_OR_RETURN(MemoryRef ref,
                              CommitChanges(txn, memory, req.actor, req.reason, {}, changes));
          out = ChangeOutcome(ref, changes[1]);
        } else {
          PC_ASSIGN_OR_RETURN(out, CommitOneChange(txn, memory, req.actor, req.reason, change));
        }
        out.near_duplicates = near;
        return Status::Ok();
      });
  PC_RETURN_IF_ERROR(FinishWrite(store_, written, scope_id, req.scope_id, prepared.usage));
  return out;
}

PreparedWrite MemoryService::PrepareWrite(const ScopeRef& scope, const std::string& text,
                                          ChangeOp op, const std::string& skip_entry) {
  PreparedWrite out;
  out.planned.op = op;
  Embed(text, out.planned.vector_profile, out.planned.vector, out.usage);
  out.before =
      LookUpBeforeWrite(store_, scope, limits_.policy,
                        {{text, out.planned.vector, out.planned.vector_profile, skip_entry}})[0];
  return out;
}

void MemoryService::Embed(const std::string& text, std::string& profile,
                          std::optional<std::vector<float>>& out, ModelUsage& usage) {
  if (!embedder_) return;
  auto vectors = embedder_->Embed({text}, usage);
  if (vectors.ok() && vectors->size() == 1) out = std::move((*vectors)[0]);
  // After the call: an endpoint down since start-up has no dimension yet, so no profile to record
  // (the vector is missing either way, and the backfill completes it under the real profile).
  if (embedder_->profile().dimension > 0) profile = embedder_->profile().Key();
}

}  // namespace pc
