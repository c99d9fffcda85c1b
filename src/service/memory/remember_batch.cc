// ours: POST /v1/memory/remember/batch — many entries for one scope in one explicit revision
// (docs/api.md). Each entry goes through new_entry.h exactly as a remember's does; the batch then
// commits one revision with an add per new entry, or nothing when every entry was already there.
#include <algorithm>
#include <map>
#include <variant>

#include "model/canonical.h"
#include "search/embedder.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/memory/commit.h"
#include "service/memory/memory_service.h"
#include "service/memory/new_entry.h"

namespace pc {
namespace {

constexpr size_t kEmbedChunk = 256;  // texts per embedder call, as reindex's batches

// An entry's error as the request names it: "entries[3]: …", details.field "entries[3].text".
Status AtEntry(size_t i, const Status& s) {
  const std::string at = "entries[" + std::to_string(i) + "]";
  Status out(s.code(), at + ": " + s.message());
  bool named = false;
  for (const Detail& d : s.details()) {
    if (d.key == "field" && std::holds_alternative<std::string>(d.value)) {
      out.With("field", at + "." + std::get<std::string>(d.value));
      named = true;
    } else {
      out.With(d.key, d.value);
    }
  }
  if (!named) out.With("field", at);
  return out.With("entry", static_cast<int64_t>(i));
}

Status CheckBatch(const RememberBatchRequest& req, const ServiceLimits& limits) {
  if (req.entries.empty()) return FieldError("entries", "no entries given");
  if (req.entries.size() > kMaxRememberBatch)
    return TooLarge("at most " + std::to_string(kMaxRememberBatch) + " entries per batch")
        .WithDetail("field", "entries")
        .WithDetail("limit", static_cast<int64_t>(kMaxRememberBatch));
  for (size_t i = 0; i < req.entries.size(); ++i)
    if (Status s = CheckNewEntry(req.entries[i], limits); !s.ok()) return AtEntry(i, s);
  PC_RETURN_IF_ERROR(CheckOptionalText("reason", req.reason, limits.max_reason_bytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("actor", req.actor, limits.max_actor_bytes));
  if (req.expected_revision && *req.expected_revision < 1)
    return FieldError(
        "expected_revision",
        "expected_revision must be 1 or more (leave it out for a memory with no revision "
        "yet)");
  return Status::Ok();
}

// What a batch does, decided inside its write, entry by entry in the request's order.
struct BatchPlan {
  std::vector<OneChange> changes;  // the adds, committed as one revision
  std::vector<int> change_of;      // entry → its add, or -1
  std::vector<int> same_as;        // entry → an earlier entry of the batch with its text, or -1
  std::vector<std::optional<ManifestItem>> head_duplicate;  // entry → the head entry with its text
  std::vector<std::vector<NearDuplicate>> near;  // entry → the reconcile gate's warnings
};

Result<BatchPlan> PlanBatch(WriteTxn& txn, const Artifact& memory, const RememberBatchRequest& req,
                            const std::vector<std::string>& hashes,
                            const std::vector<OneChange>& planned, const WritePolicy& defaults,
                            const std::vector<ToReconcile>& writes,
                            std::vector<ReconcileLookup> before) {
  const size_t n = req.entries.size();
  BatchPlan plan{{},
                 std::vector<int>(n, -1),
                 std::vector<int>(n, -1),
                 std::vector<std::optional<ManifestItem>>(n),
                 std::vector<std::vector<NearDuplicate>>(n)};
  std::map<std::string, size_t> first;  // content hash → the batch's entry that adds it
  std::optional<WritePolicy> policy;    // read once, at the first entry that needs the gates
  PC_RETURN_IF_ERROR(CatchUpLookups(txn, memory, writes, before));  // what changed since: read once
  for (size_t i = 0; i < n; ++i) {
    Result<ResolvedEntry> resolved = ResolveNewEntry(txn, memory, req.entries[i], hashes[i]);
    if (!resolved.ok()) return AtEntry(i, resolved.status());
    if (resolved->duplicate) {
      plan.head_duplicate[i] = std::move(resolved->duplicate);
      continue;
    }
    if (auto [it, added] = first.emplace(hashes[i], i); !added) {
      plan.same_as[i] = static_cast<int>(it->second);
      continue;
    }
    if (!policy) {
      PC_ASSIGN_OR_RETURN(policy, ScopePolicy(txn, memory.scope_id, defaults));
    }
    OneChange change = planned[i];
    Result<std::vector<NearDuplicate>> near =
        GateNewEntry(txn, *policy, memory, req.entries[i], hashes[i], std::move(resolved->evidence),
                     change, &before[i]);
    if (!near.ok()) return AtEntry(i, near.status());
    if (std::optional<OneChange> retire = RetireExpiredTwin(*resolved))
      plan.changes.push_back(std::move(*retire));  // the batch's own entry says it again
    plan.near[i] = std::move(near).value();
    plan.change_of[i] = static_cast<int>(plan.changes.size());
    plan.changes.push_back(std::move(change));
  }
  return plan;
}

// Each entry's answer once the batch is at `ref` (its new revision, or the head it left alone).
BatchOutcome Answer(const MemoryRef& ref, BatchPlan& plan) {
  BatchOutcome out;
  out.memory = ref;
  out.changed = !plan.changes.empty();
  out.entries.resize(plan.change_of.size());
  for (size_t i = 0; i < out.entries.size(); ++i) {
    WriteOutcome& e = out.entries[i];
    if (plan.change_of[i] >= 0) {
      e = ChangeOutcome(ref, plan.changes[static_cast<size_t>(plan.change_of[i])]);
      e.near_duplicates = std::move(plan.near[i]);
    } else if (plan.head_duplicate[i]) {
      e.memory = ref;
      e.duplicate_of = Citation{ref, plan.head_duplicate[i]->version.entry_id,
                                plan.head_duplicate[i]->version.entry_version_id};
    }
  }
  for (size_t i = 0; i < out.entries.size(); ++i)  // after the adds: each cites one of them
    if (plan.same_as[i] >= 0) {
      out.entries[i].memory = ref;
      out.entries[i].duplicate_of = out.entries[static_cast<size_t>(plan.same_as[i])].citation;
    }
  return out;
}

}  // namespace

Result<BatchOutcome> MemoryService::RememberBatch(const RememberBatchRequest& req) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Given(req.scope, req.scope_id));
  PC_RETURN_IF_ERROR(CheckBatch(req, limits_));
  std::vector<std::string> hashes;
  for (size_t i = 0; i < req.entries.size(); ++i) {
    Result<std::string> hash = ContentHash(req.entries[i].kind, req.entries[i].text);
    if (!hash.ok()) return AtEntry(i, hash.status());
    hashes.push_back(std::move(hash).value());
  }
  std::vector<OneChange> planned;
  ModelUsage usage;
  EmbedAll(req.entries, planned, usage);  // before the transaction: never hold it for a model
  std::vector<ToReconcile> writes;        // and the gate's lookups (write_gates.h)
  for (size_t i = 0; i < req.entries.size(); ++i)
    writes.push_back({req.entries[i].text, planned[i].vector, planned[i].vector_profile, ""});
  const std::vector<ReconcileLookup> before =
      LookUpBeforeWrite(store_, scope, limits_.policy, writes);

  BatchOutcome out;
  std::string scope_id;  // internal, for a refusal's audit row
  // In a transaction of its own (Write, not WriteFor): grouped with others, a batch would hold up
  // the writes of every scope that shares its group on PostgreSQL for its whole length (store.h).
  Status written = store_.Write(
      RequestActor(),
      [&](WriteTxn& txn) -> Status {  // may run more than once (store.h)
        out = BatchOutcome{};
        PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemoryForWrite(txn, scope));
        scope_id = txn.audit_trail().created_scope ? "" : memory.scope_id;
        PC_RETURN_IF_ERROR(CheckExpectedRevision(req.expected_revision, memory.head_revision));
        PC_ASSIGN_OR_RETURN(BatchPlan plan, PlanBatch(txn, memory, req, hashes, planned,
                                                      limits_.policy, writes, before));
        MemoryRef ref{memory.family, memory.artifact_id, memory.head_revision};
        if (!plan.changes.empty()) {
          PC_ASSIGN_OR_RETURN(ref,
                              CommitChanges(txn, memory, req.actor, req.reason, {}, plan.changes));
        }
        out = Answer(ref, plan);
        return Status::Ok();
      });
  PC_RETURN_IF_ERROR(FinishWrite(store_, written, scope_id, req.scope_id, usage));
  return out;
}

void MemoryService::EmbedAll(const std::vector<RememberRequest>& entries,
                             std::vector<OneChange>& out, ModelUsage& usage) {
  out.assign(entries.size(), OneChange{});
  if (!embedder_) return;
  for (size_t at = 0; at < entries.size(); at += kEmbedChunk) {
    const size_t end = std::min(entries.size(), at + kEmbedChunk);
    std::vector<std::string> texts;
    for (size_t i = at; i < end; ++i) texts.push_back(entries[i].text);
    auto vectors = embedder_->Embed(texts, usage);
    if (vectors.ok() && vectors->size() == texts.size())
      for (size_t i = at; i < end; ++i) out[i].vector = std::move((*vectors)[i - at]);
  }
  // As Embed: an endpoint down since start-up has no dimension yet, so no profile to record.
  if (embedder_->profile().dimension > 0)
    for (OneChange& c : out) c.vector_profile = embedder_->profile().Key();
}

}  // namespace pc
