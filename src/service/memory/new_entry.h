// What remember and remember/batch do to each entry they add, so that an entry is written in
// exactly one way whichever route brought it: the same validation, the same exact-duplicate answer
// and the same write gates (write_gates.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "service/memory/commit.h"
#include "service/memory/memory_service.h"
#include "service/memory/write_gates.h"
#include "store/store.h"

namespace pc {

// The shape of an entry to add (kind, text, reason, evidence), before any store read.
// InvalidArgument / TooLarge naming the field.
Status CheckNewEntry(const RememberRequest& req, const ServiceLimits& limits);

// A write's expected_revision (if given) against the memory's head: 409 with the current one.
Status CheckExpectedRevision(const std::optional<int64_t>& expected, int64_t head_revision);

// Inside the write: the entry's evidence in its stored form (422 for what does not resolve) and,
// when an active head entry already says the same text, that entry (no change is made for it).
// An active entry that says the same but is past its valid_until (docs/expiry.md) is no
// duplicate: it is `expired`, and the write retires it in the same revision as it adds the text
// again (RetireExpiredTwin), so an acknowledged write is never an entry the expiry pass retires.
struct ResolvedEntry {
  std::vector<std::string> evidence;
  std::optional<ManifestItem> duplicate;
  std::optional<ManifestItem> expired;
};

// The retire of `resolved.expired`, if any, as a change to commit before the add.
std::optional<OneChange> RetireExpiredTwin(const ResolvedEntry& resolved);
Result<ResolvedEntry> ResolveNewEntry(ReadTxn& txn, const Artifact& memory,
                                      const RememberRequest& req, const std::string& content_hash);

// The write gates on an entry that is not a duplicate (evidence required, reconcile in the scope's
// mode), then the add itself in `change` (which already holds the entry's vector, if any): new ids,
// version 1, kind, text, hash, reason and evidence. Returns the reconcile gate's warnings; a gate's
// refusal is its error.
// `before`: the entry's reconcile lookup made before the write (write_gates.h), if any.
Result<std::vector<NearDuplicate>> GateNewEntry(WriteTxn& txn, const WritePolicy& policy,
                                                const Artifact& memory, const RememberRequest& req,
                                                const std::string& content_hash,
                                                std::vector<std::string> evidence,
                                                OneChange& change,
                                                const ReconcileLookup* before = nullptr);

// MemoryService::PrepareWrite's answer: the change as planned before the transaction (op and
// vector), what the embedding model reported (recorded once the write succeeded) and the gate's
// lookup.
struct PreparedWrite {
  OneChange planned;
  ModelUsage usage;
  ReconcileLookup before;
};

// After a write of entries (remember, remember/batch, revise): a gate's refusal gets its own audit
// row (`scope_id`: internal, or empty for a scope the write would have created), and the model
// usage of the entries' embeddings is recorded against `scope_named` once the write stands.
// Returns `written`.
Status FinishWrite(Store& store, const Status& written, const std::string& scope_id,
                   const std::string& scope_named, const ModelUsage& usage);

}  // namespace pc
