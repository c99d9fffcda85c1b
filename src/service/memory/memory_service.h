// The use cases of the explicit write path and the memory reads (DESIGN §1–3, invariants 2–6).
// Every method validates its input before touching the store, runs in one store transaction, and
// leaves the store unchanged when it fails. Thread-safe (the store serializes writers).
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "service/core/page.h"
#include "service/memory/write_gates.h"
#include "service/memory/write_policy.h"
#include "store/store.h"

namespace pc {

struct ServiceLimits {
  size_t max_entry_bytes = 16 * 1024;  // DESIGN: entries are small conclusions, not documents
  size_t max_reason_bytes = 4 * 1024;
  size_t max_actor_bytes = 128;
  WritePolicy policy;  // the write gates' defaults; a scope's settings override them
};

// The spec's unpaged listings answer at most this much: POST /v1/memory/changes the oldest 1,000
// revisions after since_revision (ask again from the last one until it is the head); POST
// /v1/memory/entries/list refuses a memory of more entries (page with GET /v1/memory/entries).
inline constexpr int64_t kMaxChangesRevisions = 1000;
inline constexpr size_t kMaxUnpagedEntries = 10000;

struct ScopeOutcome {
  Scope scope;
  bool created = false;
};

struct ScopesPage {
  std::vector<Scope> items;
  std::optional<std::string> next_cursor;
};

// A write request's `scope` is its scope_id as the layer that took it parsed it (the router), held
// by that caller for the call; null: the service parses scope_id (ScopeRef::Given).
struct RememberRequest {
  std::string scope_id;
  std::string kind;
  std::string text;
  std::string reason;
  std::string actor;
  std::optional<int64_t> expected_revision;
  std::vector<std::string> evidence;  // ours: URLs, source ids, citations (write_gates.h)
  // ours (docs/expiry.md): "" (the kind's default, if any), "never", a duration ("14d") or a moment
  std::string valid_until;
  const ScopeRef* scope = nullptr;  // scope_id parsed (ScopeRef::Given); null: not yet
};

// ours: POST /v1/memory/remember/batch. Entries for one scope, written as one revision (one add per
// new entry); each entry passes what a remember passes. `entries[i]` gives kind, text, reason
// (the version's) and evidence; its scope_id, actor and expected_revision are the batch's.
inline constexpr size_t kMaxRememberBatch = 1000;
struct RememberBatchRequest {
  std::string scope_id;
  std::vector<RememberRequest> entries;
  std::string reason;  // the revision's
  std::string actor;
  std::optional<int64_t> expected_revision;
  const ScopeRef* scope = nullptr;  // scope_id parsed (ScopeRef::Given); null: not yet
};

struct ReviseRequest {
  std::string scope_id;
  Citation citation;
  std::string text;
  std::optional<std::string> kind;  // unset = keep the entry's kind
  std::string reason;
  std::string actor;
  std::vector<std::string>
      evidence;  // ours: added to the version's evidence (a hypothesis is promoted)
  // ours (docs/expiry.md): as remember's; "" keeps the current version's unless the kind has a
  // default, which then runs from now. Another valid_until for the same text is a new version.
  std::string valid_until;
  const ScopeRef* scope = nullptr;  // scope_id parsed (ScopeRef::Given); null: not yet
};

struct RetireRequest {
  std::string scope_id;
  Citation citation;
  std::string reason;
  std::string actor;
  const ScopeRef* scope = nullptr;  // scope_id parsed (ScopeRef::Given); null: not yet
};

// The answer of every write. changed=false means no revision was made: `entry` is empty and
// `duplicate_of` cites the active entry that already says the same thing.
struct WriteOutcome {
  MemoryRef memory;
  bool changed = false;
  std::optional<EntryVersion> entry;
  std::optional<Citation> citation;
  bool active = true;
  std::optional<Change> change;
  std::optional<Citation> duplicate_of;
  std::vector<NearDuplicate> near_duplicates;  // the reconcile gate's warning (write_gates.h)
};

// The answer of a batch: the memory after it (a new revision when any entry was added, else the
// head as it was) and each entry's outcome in the request's order, as remember answers it. An
// entry the batch already holds is a duplicate of that entry's new version.
struct BatchOutcome {
  MemoryRef memory;
  bool changed = false;
  std::vector<WriteOutcome> entries;
};

// A scope's write policy: what it overrides, and what applies.
struct ScopeSettingsView {
  std::string scope_id;  // as the caller named it
  std::map<std::string, std::string> overrides, effective;
};

struct ListEntriesRequest {
  std::string scope_id;
  std::optional<int64_t> revision;  // unset = head
  bool include_inactive = false;
  PageRequest page;
  std::optional<int64_t> min_revision;  // read-your-writes (validation.h CheckMinRevision)
  // Leave out what was not valid at this moment (docs/expiry.md); unset: now at the head, when
  // the revision was made at a past one. A walk over pages gives the first page's valid_at.
  std::optional<int64_t> valid_at;
};

struct EntriesPage {
  MemoryRef memory;                 // the revision listed; each item's citation is at this revision
  std::optional<int64_t> valid_at;  // the moment validity was judged at (unset: include_inactive)
  std::vector<ManifestItem> items;
  std::optional<std::string> next_cursor;
};

struct RevisionsPage {
  MemoryRef head;
  std::vector<RevisionInfo> items;
  std::optional<std::string> next_cursor;
};

// The revisions after `since_revision`, oldest first (POST /v1/memory/changes).
struct ChangesPage {
  MemoryRef head;  // unset (revision 0) for a scope nobody wrote to
  std::vector<RevisionInfo> revisions;
};

struct RevisionDetail {
  RevisionInfo info;
  std::vector<ManifestItem> manifest;  // every entry at this revision, active and inactive
  std::optional<std::string> next_cursor;
};

struct VersionsPage {
  std::string entry_id;
  std::vector<EntryVersion> items;
  std::optional<std::string> next_cursor;
};

struct ReadOutcome {
  Citation citation;
  EntryVersion version;
  bool active_at_revision = true;
  MemoryRef head;
  bool current = false;  // still this exact version, active, at the head
};

// The expiry pass (docs/expiry.md): what MemoryService::RetireExpired did.
inline constexpr const char* kExpiryActor = "system";
inline constexpr const char* kExpiryReason = "expired";
inline constexpr int kExpiryBatch = 1000;  // versions read at a time
struct ExpiryPass {
  int64_t until_ms = 0;               // versions valid until at most this moment were looked at
  int64_t retired = 0;                // entries retired
  int64_t revisions = 0;              // revisions made (one per memory and batch)
  bool complete = true;               // every memory done: the next pass may start after until_ms
  std::vector<std::string> failures;  // "art_…: why", for the server's log
};

class Embedder;
struct OneChange;
struct PreparedWrite;  // new_entry.h

class MemoryService {
 public:
  // `embedder` may be null (no vector projection); it must outlive the service.
  MemoryService(Store& store, ServiceLimits limits, Embedder* embedder = nullptr)
      : store_(store), limits_(limits), embedder_(embedder) {}

  Result<ScopeOutcome> CreateScope(const std::string& key);
  Result<Scope> GetScope(const std::string& scope_id);
  Result<Scope> GetScopeByKey(const std::string& key);
  // The scope `scope` names, if it exists, in one read; kept in `scope` for the request's later
  // transactions (ScopeRef::Find).
  Result<std::optional<ScopeIds>> FindScope(const ScopeRef& scope);
  Result<ScopesPage> ListScopes(const PageRequest& page);

  Result<WriteOutcome> Remember(const RememberRequest& req);
  // All of the batch's entries or none: one bad or refused entry refuses the batch (its error names
  // entries[i]) and changes nothing.
  Result<BatchOutcome> RememberBatch(const RememberBatchRequest& req);
  Result<WriteOutcome> Revise(const ReviseRequest& req);
  Result<WriteOutcome> Retire(const RetireRequest& req);

  // The write gates' settings of a scope (write_policy.h); a scope nobody wrote to has none.
  Result<ScopeSettingsView> GetSettings(const std::string& scope_id);
  // Sets (a value) or clears (nullopt) settings, all or none; creates the scope.
  Result<ScopeSettingsView> SetSettings(
      const std::string& scope_id,
      const std::map<std::string, std::optional<std::string>>& changes);

  Result<EntriesPage> ListEntries(const ListEntriesRequest& req);
  Result<RevisionsPage> ListRevisions(const std::string& scope_id, const PageRequest& page);
  // Every revision after `since_revision` (0: all), oldest first. 404 for a revision past the head.
  Result<ChangesPage> ListChanges(const std::string& scope_id, int64_t since_revision);
  Result<RevisionDetail> GetRevision(const std::string& scope_id, int64_t revision,
                                     const PageRequest& page);
  Result<VersionsPage> ListVersions(const std::string& scope_id, const std::string& entry_id,
                                    const PageRequest& page);
  Result<ReadOutcome> Read(const std::string& scope_id, const Citation& citation);

  // Retires every entry whose head version became invalid in (after_ms, now] (docs/expiry.md),
  // one revision per memory (actor "system", reason "expired"). A memory that fails is reported
  // in the answer and left for the next pass; `stopping` ends it between batches.
  Result<ExpiryPass> RetireExpired(int64_t after_ms, const std::atomic<bool>* stopping = nullptr);

  const ServiceLimits& limits() const { return limits_; }

 private:
  // What a write of one text does before its transaction, never holding it for a model: the
  // text's vector (Embed), and the reconcile gate's lookup (write_gates.h) without `skip_entry`.
  PreparedWrite PrepareWrite(const ScopeRef& scope, const std::string& text, ChangeOp op,
                             const std::string& skip_entry);
  // The vector of a text about to be written, or nothing when no embedder is configured or it
  // fails (the write goes on; the projection records the vector as missing).
  // What the embedding model reported is added to `usage` (recorded once the write succeeded).
  void Embed(const std::string& text, std::string& profile, std::optional<std::vector<float>>& out,
             ModelUsage& usage);
  // The same for many texts, in chunks (one call per chunk); a failed chunk leaves its vectors out.
  void EmbedAll(const std::vector<RememberRequest>& entries, std::vector<OneChange>& out,
                ModelUsage& usage);

  Store& store_;
  ServiceLimits limits_;
  Embedder* embedder_;
};

}  // namespace pc
