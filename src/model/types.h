// The memory model of DESIGN §1 as plain structs. No behaviour, no JSON, no SQL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pc {

inline constexpr const char* kMemoryFamily = "memory";
inline constexpr const char* kHandoffFamily = "handoff";

struct Scope {
  std::string scope_id;
  std::string key;
  int64_t created_at_ms = 0;
  std::string memory_artifact_id;  // the scope's default memory
  int64_t memory_head_revision = 0;
  int64_t memory_created_at_ms = 0;
};

// A versioned artifact (memory, later handoff) and its newest committed revision (0 = none yet).
struct Artifact {
  std::string artifact_id;
  std::string scope_id;
  std::string family;
  int64_t head_revision = 0;
  int64_t created_at_ms = 0;
};

// `family / artifact_id @ revision`.
struct MemoryRef {
  std::string family = kMemoryFamily;
  std::string artifact_id;
  int64_t revision = 0;

  bool operator==(const MemoryRef&) const = default;
};

// One exact, immutable content of an entry.
struct EntryVersion {
  std::string entry_version_id;
  std::string entry_id;
  int64_t version = 0;
  std::optional<std::string> previous_version_id;
  std::string kind;
  std::string text;          // exactly as written
  std::string content_hash;  // SHA-256 of the canonical form (model/canonical.h)
  std::vector<std::string> source_refs;
  int64_t created_by_revision = 0;
  std::string reason;
  int64_t created_at_ms = 0;
  // ours (docs/expiry.md): from this moment the version is no longer valid: it leaves search, lists
  // and prepared context at the head, and the expiry pass retires it. Unset: valid until revised
  // or retired. A version is valid from created_at_ms.
  std::optional<int64_t> valid_until_ms;
};

// Whether `v` is still valid at `at_ms` (Unix milliseconds): before its valid_until, if any.
inline bool ValidAt(const EntryVersion& v, int64_t at_ms) {
  return !v.valid_until_ms || at_ms < *v.valid_until_ms;
}

// A statement about two entities (subject, relation, object) that extraction found in its sources
// (docs/graph.md); evidence: the source refs ("source/ID@POSITION") that state it.
struct GraphTriple {
  std::string subject, relation, object;
  std::vector<std::string> evidence;

  bool operator==(const GraphTriple&) const = default;
};

// One edge of a memory's graph projection: a triple attached to the entry version it was kept
// with. Immutable; it is in the projection at revision R when it was added at or before R and its
// version is its entry's active version at R.
struct GraphEdge {
  std::string entry_id, entry_version_id;
  int64_t revision = 0;  // the revision that added it
  GraphTriple triple;
  std::string subject_key, object_key;  // the entities: FoldForMatch of subject and object
};

// An exact reference: memory ref + entry + entry version.
struct Citation {
  MemoryRef memory;
  std::string entry_id;
  std::string entry_version_id;

  bool operator==(const Citation&) const = default;
};

// One line of a manifest: which version of an entry, active or not, at a revision.
struct ManifestItem {
  EntryVersion version;
  bool active = true;
};

enum class ChangeOp { kAdd, kRevise, kRetire };
// "add", "revise", "retire": the wire's and the stores' names. The parse answers nullopt for any
// other text.
const char* ChangeOpName(ChangeOp op);
std::optional<ChangeOp> ParseChangeOp(std::string_view name);

// What one revision did to one entry.
struct Change {
  ChangeOp op = ChangeOp::kAdd;
  std::string entry_id;
  std::optional<std::string>
      from_version_id;        // revise: the replaced version; retire: the retired one
  std::string to_version_id;  // add/revise: the new version; retire: unchanged version
};

struct RevisionInfo {
  MemoryRef memory;
  std::string actor;
  std::string reason;
  int64_t created_at_ms = 0;
  std::vector<std::string> lineage;  // sources / artifacts this revision was derived from
  std::vector<Change> changes;
};

// One record of a scope's source log (DESIGN §1): raw material for extraction, appended at the
// next position (1, 2, 3 …) and never changed.
struct Source {
  std::string source_id;
  std::string scope_id;
  int64_t position = 0;
  std::string kind;  // e.g. "chat", "work_log", "tool_output"
  std::string
      purpose;  // kPurposeMemory: extraction reads it; kPurposeArchive: kept, never extracted
  std::string content;
  std::string metadata_json;  // a JSON object as given, or "{}"
  std::optional<std::string> idempotency_key;
  int64_t created_at_ms = 0;
};

// Source purposes: material for memory extraction (the default), or kept for the record only (it
// still advances the extraction cursor, and stays searchable as experience).
inline constexpr const char* kPurposeMemory = "memory";
inline constexpr const char* kPurposeArchive = "archive";
// A scope's cursors hold source positions (how far a consumer has read its log), all but this
// one: the memory revision the last daily review saw (service/review/daily_review.cc).
inline constexpr const char* kReviewedRevisionConsumer = "daily_review_revision";
// The kind of a Task Outcome (RFC 1223, docs/work-continuity.md): kept as archive, never extracted
// into memory, yet captured for reviewed Experience incubation, so the daily review reads it.
inline constexpr const char* kTaskOutcomeSourceKind = "task-outcome";

// The handoff's content (DESIGN §6, RFC 0048; docs/handoff.md): the spec's HandoffContent
// "powercontext.handoff.v1" as plain structs. A citation is one of three kinds of exact evidence.
enum class HandoffCitationKind { kSource, kArtifact, kMemory };
struct HandoffCitation {
  HandoffCitationKind kind = HandoffCitationKind::kMemory;
  std::string source_name;  // kSource: SourceReference.name (kContentSourceName)
  std::string source_id;    // kSource: the id the caller knows the source by
  MemoryRef artifact;  // kArtifact: the exact revision; kMemory: the citation's memory revision
  std::string entry_id, entry_version_id;  // kMemory

  bool operator==(const HandoffCitation&) const = default;
};
struct HandoffStatement {
  std::string text;
  std::vector<HandoffCitation> citations;  // 1 … 32

  bool operator==(const HandoffStatement&) const = default;
};
struct HandoffOmission {
  std::string text;
  std::optional<HandoffCitation> citation;

  bool operator==(const HandoffOmission&) const = default;
};
enum class HandoffDisposition { kContinuable, kBlocked, kComplete };
// The spec's names ("source", "artifact", "memory"; "continuable", "blocked", "complete"): the
// wire's, the prompts' and the stores' columns alike. A parse answers nullopt for any other text.
const char* HandoffCitationKindName(HandoffCitationKind k);
std::optional<HandoffCitationKind> ParseHandoffCitationKind(std::string_view name);
const char* HandoffDispositionName(HandoffDisposition d);
std::optional<HandoffDisposition> ParseHandoffDisposition(std::string_view name);
struct HandoffContent {
  std::string objective;                // the caller's; never the model's
  std::vector<HandoffStatement> state;  // 1 … 64
  HandoffDisposition disposition = HandoffDisposition::kContinuable;
  std::optional<HandoffStatement> next_action;
  std::vector<HandoffOmission> omissions;  // 0 … 64

  bool operator==(const HandoffContent&) const = default;
};

// One committed revision of a scope's handoff artifact: immutable once written; `ref.family` is
// kHandoffFamily.
struct Handoff {
  MemoryRef ref;  // handoff / hnd_… @ revision
  HandoffContent content;
  std::string actor;
  int64_t created_at_ms = 0;
};

// The exact reference to a source, as entry versions' source_refs and revision lineage carry it:
// "source/src_…@position".
// `source/ID@POSITION`, where ID is the id the caller knows the source by: the source_id it gave
// (POST /v1/sources/content, kept as the idempotency key), else the server's `src_…` id.
std::string SourceRef(const Source& s);
struct SourceRefParts {
  std::string source_id;
  int64_t position = 0;
};
std::optional<SourceRefParts> ParseSourceRef(std::string_view ref);
// The spec's name of every source type this server captures (SourceReference.name).
inline constexpr const char* kContentSourceName = "content";

// An API token (DESIGN §11): its name, role and scope patterns, and the SHA-256 of its secret;
// the secret itself is shown once, at creation, and never stored.
struct ApiToken {
  std::string name;
  std::string role;                         // reader, writer, admin, metrics
  std::vector<std::string> scope_patterns;  // empty: every scope
  std::string secret_hash;                  // lower-case hex SHA-256 of the secret
  std::string created_by;
  int64_t created_at_ms = 0;
  std::optional<int64_t> expires_at_ms;
  std::optional<int64_t> revoked_at_ms;
};

// One audit row: an acknowledged write (written in its own transaction) or a refused request.
struct AuditRecord {
  int64_t seq = 0;  // assigned by the store, increasing
  int64_t at_ms = 0;
  std::string actor;         // the authenticated token's name ("local", "system" without auth)
  std::string operation;     // the route's operation id, e.g. remember_memory
  std::string scope_id;      // the server id of the scope written (empty: none)
  std::string targets_json;  // what changed: {"revision": 3, "entries": [...], ...}
  std::string result;        // "ok", or "denied" with the HTTP status in targets_json
  std::string request_id;
};

// A page of the audit log, newest first.
struct AuditQuery {
  std::string scope_id;    // server id; empty: all
  std::string actor;       // empty: all
  int64_t since_ms = 0;    // at >= since (0: from the start)
  int64_t until_ms = 0;    // at < until (0: to now)
  int64_t before_seq = 0;  // 0: from the newest
  int limit = 100;
};

}  // namespace pc
