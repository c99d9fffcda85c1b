// Storage interfaces. No backend types appear here: SQLite (the embedded default) and PostgreSQL
// (scale-out) implement them.
//
// All access happens inside a transaction handed to a callback:
//   - Read: one consistent snapshot for the whole callback (readers never see half a commit).
//   - Write: one serialized transaction; if the callback returns an error, or anything fails, the
//     whole transaction rolls back and the store is exactly as before (nothing half-written).
// The callbacks must not throw; a throw is caught at the seam and reported as Internal.
//
// The write contract: a Write callback MAY RUN MORE THAN ONCE. A store may roll a transaction
// back and run the callback again (SQLite's group commit re-runs a whole group with a savepoint
// per write when one write fails after changing rows). So a callback is a pure function of the
// transaction and of inputs it does not consume: plan outside (validate, hash, embed — never
// under the write lock), apply inside; copy what it commits, never std::move out of a captured
// variable; and reset every result it fills in at its start. Only the last run's effects and
// results count. POWERCONTEXT_TEST_REPLAY_WRITES=1 makes either store run every callback twice
// (the first run rolled back), and the store and service suites pass with it on, on both stores.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "model/report.h"
#include "model/review.h"
#include "model/stats.h"
#include "model/types.h"
#include "search/text_query.h"
#include "store/audit_trail.h"

namespace pc {

class ReadTxn {
 public:
  virtual ~ReadTxn() = default;
  // Whether this is a write's transaction: what it reads may still roll back with it (or with a
  // write of its group commit); a read's snapshot is committed.
  virtual bool writing() const = 0;

  virtual Result<std::optional<Scope>> FindScope(const std::string& scope_id) = 0;
  virtual Result<std::optional<Scope>> FindScopeByKey(const std::string& key) = 0;
  // Scopes ordered by scope_id, strictly after `after` (empty = from the start).
  virtual Result<std::vector<Scope>> ListScopes(const std::string& after, int limit) = 0;

  virtual Result<std::optional<Artifact>> FindArtifact(const std::string& artifact_id) = 0;
  // The scope's default artifact of `family` (e.g. its handoff), if it has one yet.
  virtual Result<std::optional<Artifact>> FindDefaultArtifact(const std::string& scope_id,
                                                              const std::string& family) = 0;
  // A handoff revision, if it exists; the handoff's revisions newest first, below `before`
  // (0 = from the head).
  virtual Result<std::optional<Handoff>> FindHandoff(const std::string& artifact_id,
                                                     int64_t revision) = 0;
  virtual Result<std::vector<Handoff>> ListHandoffs(const std::string& artifact_id, int64_t before,
                                                    int limit) = 0;

  // The manifest at `revision`, ordered by entry_id, strictly after `after_entry_id`.
  virtual Result<std::vector<ManifestItem>> ListManifest(const std::string& artifact_id,
                                                         int64_t revision, bool include_inactive,
                                                         const std::string& after_entry_id,
                                                         int limit) = 0;
  // One entry's manifest line at `revision`, if the entry exists there.
  virtual Result<std::optional<ManifestItem>> FindManifestItem(const std::string& artifact_id,
                                                               int64_t revision,
                                                               const std::string& entry_id) = 0;
  // The active head entry whose content_hash is `content_hash`, if any.
  virtual Result<std::optional<ManifestItem>> FindActiveByHash(const std::string& artifact_id,
                                                               const std::string& content_hash) = 0;

  // Revisions newest first, strictly below `before` (0 = from the head). Changes are filled in.
  virtual Result<std::vector<RevisionInfo>> ListRevisions(const std::string& artifact_id,
                                                          int64_t before, int limit) = 0;
  virtual Result<std::optional<RevisionInfo>> FindRevision(const std::string& artifact_id,
                                                           int64_t revision) = 0;

  // An entry's versions in version order, strictly after `after_version`.
  virtual Result<std::vector<EntryVersion>> ListEntryVersions(const std::string& entry_id,
                                                              int64_t after_version, int limit) = 0;
  virtual Result<std::optional<EntryVersion>> FindEntryVersion(const std::string& version_id) = 0;
  // The artifact an entry belongs to, if the entry exists.
  virtual Result<std::optional<std::string>> FindEntryArtifact(const std::string& entry_id) = 0;
  // The versions that are active at the head of their memory and whose valid_until is in
  // (after_ms, until_ms], the earliest first, at most `limit` (docs/expiry.md: the expiry pass).
  struct ExpiredItem {
    std::string artifact_id, entry_id, entry_version_id;
    int64_t valid_until_ms = 0;
  };
  virtual Result<std::vector<ExpiredItem>> ListExpired(int64_t after_ms, int64_t until_ms,
                                                       int limit) = 0;

  // Full-text search over the head of an artifact: BM25, best first; `score` higher is better.
  // Retired entries only with include_inactive.
  struct TextHit {
    ManifestItem item;
    double score = 0;
  };
  virtual Result<std::vector<TextHit>> SearchText(const std::string& artifact_id,
                                                  const TextQuery& query, bool include_inactive,
                                                  int limit) = 0;
  // The reconcile gate's candidates (write_gates.h), the memory's active head entries: the `limit`
  // that share the most of `terms` (each one index term: a word or a CJK character), weighted by
  // rarity, then newest; and the entries of its `recent` newest changes. Bounded whatever the
  // memory's size: each term's documents are read up to `per_term` (a rare term contributes all
  // of them, a common one a bounded sample: SQLite its first, PostgreSQL its newest). Issue 28: a
  // full-text search here grew with the memory.
  virtual Result<std::vector<ManifestItem>> SharedTermCandidates(const std::string& artifact_id,
                                                                 const TextQuery& terms,
                                                                 int per_term, int limit,
                                                                 int recent) = 0;

  // The vector projection of an artifact's head: the embedding profile it is built for (empty if
  // none yet) and how many active head entries lack a vector of that profile (0 = complete).
  struct VectorState {
    std::string profile;
    int64_t missing = 0;
  };
  virtual Result<VectorState> GetVectorState(const std::string& artifact_id) = 0;
  // Visits every head vector of `profile` (active entries, and retired ones if asked).
  using VectorVisitor =
      std::function<void(const std::string& entry_id, const std::string& entry_version_id,
                         bool active, const float* vector, size_t dimension)>;
  virtual Status ScanVectors(const std::string& artifact_id, const std::string& profile,
                             bool include_inactive, const VectorVisitor& visit) = 0;
  // Visits the head vector rows of these entries; `vector` is null when the row has no vector of
  // `profile` (or the entry has no row).
  virtual Status VisitVectorRows(const std::string& profile,
                                 const std::vector<std::string>& entry_ids,
                                 const VectorVisitor& visit) = 0;
  // The entries that revisions (after, upto] of the artifact changed; `limit` of them at most
  // (negative: all).
  virtual Result<std::vector<std::string>> ChangedEntries(const std::string& artifact_id,
                                                          int64_t after, int64_t upto,
                                                          int64_t limit = -1) = 0;
  // Their manifest lines at `upto`, each entry once. Here a statement per entry; PostgreSQL, where
  // the reconcile gate reads them inside a scope's group commit (write_gates.h), in one.
  virtual Result<std::vector<ManifestItem>> ChangedItems(const std::string& artifact_id,
                                                         int64_t after, int64_t upto) {
    PC_ASSIGN_OR_RETURN(std::vector<std::string> changed, ChangedEntries(artifact_id, after, upto));
    std::vector<ManifestItem> out;
    for (const std::string& entry_id : changed) {
      PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> item,
                          FindManifestItem(artifact_id, upto, entry_id));
      if (item) out.push_back(std::move(*item));
    }
    return out;
  }

  // The scope's source log: positions (after, after + limit], in order.
  virtual Result<std::vector<Source>> ListSources(const std::string& scope_id, int64_t after,
                                                  int limit) = 0;
  // The scope's sources of one kind at positions after `after`, in order, at most `limit` (an
  // index on kind: the sources of other kinds between them are not read).
  virtual Result<std::vector<Source>> ListSourcesOfKind(const std::string& scope_id,
                                                        const std::string& kind, int64_t after,
                                                        int limit) = 0;
  // The last position of the scope's source log (0: empty).
  virtual Result<int64_t> SourceHighWatermark(const std::string& scope_id) = 0;
  virtual Result<std::optional<Source>> FindSourceByIdempotencyKey(const std::string& scope_id,
                                                                   const std::string& key) = 0;
  // The scope's source that the caller knows by `public_id`: its idempotency key (the source_id a
  // caller gave), else its `src_…` id.
  virtual Result<std::optional<Source>> FindSourceByPublicId(const std::string& scope_id,
                                                             const std::string& public_id) = 0;
  // Full-text search over the scope's source log (BM25, best first; `score` higher is better).
  struct SourceHit {
    Source source;
    double score = 0;
  };
  virtual Result<std::vector<SourceHit>> SearchSources(const std::string& scope_id,
                                                       const TextQuery& query, int limit) = 0;
  // The last source position `consumer` processed for the artifact (0: none).
  virtual Result<int64_t> GetCursor(const std::string& scope_id, const std::string& artifact_id,
                                    const std::string& consumer) = 0;

  // Statistics (RFC 0072), by internal scope id. The scope's artifacts with at least one revision,
  // counted by family; the entries of an artifact's head manifest, counted by kind (active and
  // inactive); both in UTF-8 byte order.
  virtual Result<std::vector<Inventory::Count>> CountArtifactsByFamily(
      const std::string& scope_id) = 0;
  virtual Result<std::vector<Inventory::Count>> CountHeadEntriesByKind(
      const std::string& artifact_id) = 0;
  // The stored daily buckets with dates in [from, to] ("YYYY-MM-DD"); recall only for the
  // estimator.
  virtual Result<std::vector<UsageRow>> ListModelUsage(const std::string& scope_id,
                                                       const std::string& from,
                                                       const std::string& to) = 0;
  virtual Result<std::vector<RecallRow>> ListRecall(const std::string& scope_id,
                                                    const std::string& estimator_id,
                                                    const std::string& estimator_version,
                                                    const std::string& from,
                                                    const std::string& to) = 0;
  // API tokens (DESIGN §11). The token whose secret hashes to `secret_hash`, revoked or not.
  virtual Result<std::optional<ApiToken>> FindTokenByHash(const std::string& secret_hash) = 0;
  // Every token, revoked ones too, by name.
  virtual Result<std::vector<ApiToken>> ListTokens() = 0;
  // The audit log, newest first (AuditQuery's filters).
  virtual Result<std::vector<AuditRecord>> ListAudit(const AuditQuery& query) = 0;

  // Review (RFC 0050; sqlite_review.cc, pg_review.cc). A candidate's head with its current
  // version, by internal scope id.
  virtual Result<std::optional<ArtifactCandidate>> FindCandidate(
      const std::string& scope_id, const std::string& candidate_id) = 0;
  // Candidate heads of `status` (and `family`, when not empty), by candidate_id (creation order),
  // strictly after `after`.
  virtual Result<std::vector<ArtifactCandidate>> ListCandidates(const std::string& scope_id,
                                                                CandidateStatus status,
                                                                const std::string& family,
                                                                const std::string& after,
                                                                int limit) = 0;
  // One version of a candidate, if it exists.
  virtual Result<std::optional<CandidateVersion>> FindCandidateVersion(
      const std::string& scope_id, const std::string& candidate_id, int64_t version) = 0;
  virtual Result<std::vector<CandidateCount>> CountCandidates(const std::string& scope_id) = 0;
  // An Experience revision, if it exists (any revision, head or not).
  virtual Result<std::optional<Experience>> FindExperience(const std::string& artifact_id,
                                                           int64_t revision) = 0;
  // The head revision of every Experience artifact of the scope, newest artifact first, at most
  // `limit`.
  virtual Result<std::vector<Experience>> ListExperienceHeads(const std::string& scope_id,
                                                              int limit) = 0;
  // A managed Skill revision, if it exists (any revision, head or not).
  virtual Result<std::optional<Skill>> FindSkill(const std::string& artifact_id,
                                                 int64_t revision) = 0;
  // The Handoff Report catalog (RFC 0082; sqlite_report.cc, pg_report.cc): Projects and their
  // Workstreams (scopes, by internal id), each record's current version and its revisions.
  virtual Result<std::optional<ReportProject>> FindReportProject(const std::string& project_id) = 0;
  virtual Result<std::optional<ReportProject>> FindReportProjectByKey(const std::string& key) = 0;
  // Projects by project_id (creation order) strictly after `after`; archived ones only with
  // `include_archived`.
  virtual Result<std::vector<ReportProject>> ListReportProjects(const std::string& after, int limit,
                                                                bool include_archived) = 0;
  // Every revision of a Project, oldest first.
  virtual Result<std::vector<CatalogRevision<ReportProject>>> ListReportProjectRevisions(
      const std::string& project_id) = 0;
  virtual Result<std::optional<ReportWorkstream>> FindReportWorkstream(
      const std::string& scope_id) = 0;
  virtual Result<std::optional<ReportWorkstream>> FindReportWorkstreamByKey(
      const std::string& project_id, const std::string& key) = 0;
  // A Project's Workstreams by scope_id strictly after `after`.
  virtual Result<std::vector<ReportWorkstream>> ListReportWorkstreams(const std::string& project_id,
                                                                      const std::string& after,
                                                                      int limit,
                                                                      bool include_archived) = 0;
  virtual Result<std::vector<CatalogRevision<ReportWorkstream>>> ListReportWorkstreamRevisions(
      const std::string& scope_id) = 0;
  // A workspace's binding record (confirmed or detached), if it has one.
  virtual Result<std::optional<WorkspaceBinding>> FindWorkspaceBinding(
      const std::string& workspace_instance_id) = 0;
  // The Activity Event recorded under (source, source_event_id), if any.
  virtual Result<std::optional<ReportActivity>> FindReportActivity(
      const std::string& source, const std::string& source_event_id) = 0;
  // A Project's Activity Events with after < cursor <= through, by cursor, at most `limit`; with
  // a period, only those whose PeriodTimeMs() is in [start, end) (either end may be open); with
  // `sources`, only those.
  struct ActivityFilter {
    std::string project_id;
    int64_t after = 0, through = 0;
    std::optional<int64_t> period_start_ms, period_end_ms;
    std::vector<std::string> sources;  // empty: every source
    int limit = 50;
    bool without_period_time = false;  // only those with no PeriodTimeMs() (unknown time)
  };
  virtual Result<std::vector<ReportActivity>> ListReportActivities(const ActivityFilter& f) = 0;
  // How many events the filter matches (its limit aside).
  virtual Result<int64_t> CountReportActivities(const ActivityFilter& f) = 0;
  // The last cursor the Activity sequence issued (0 before the first).
  virtual Result<int64_t> ReportActivityHighWatermark() = 0;
  // The scope's stored settings (service/memory/write_policy.h), name → value.
  virtual Result<std::map<std::string, std::string>> ListScopeSettings(
      const std::string& scope_id) = 0;

  // The graph projection of a memory at `revision` (docs/graph.md; sqlite_graph.cc, pg_graph.cc):
  // the edges added at or before it whose version is its entry's active version there, in the
  // order they were added.
  virtual Result<std::vector<GraphEdge>> ListGraphEdges(const std::string& artifact_id,
                                                        int64_t revision) = 0;
  // How the projection changed from revision `after` to `revision` (after < revision): the edges
  // added in between whose versions are active at `revision`, in the order they were added, and
  // the versions that stopped being active (revised or retired). It reads what changed, not the
  // memory: an edge is added in the revision that adds its version, and a version once replaced
  // or retired never returns, so these two lists are the whole difference.
  struct GraphDelta {
    std::vector<GraphEdge> added;
    std::vector<std::string> removed_versions;
  };
  virtual Result<GraphDelta> ListGraphChanges(const std::string& artifact_id, int64_t after,
                                              int64_t revision) = 0;

  // The record of the scope's last flush that processed a window (service/flush/flush_record.h), as
  // that flush wrote it; nullopt before the first.
  virtual Result<std::optional<std::string>> FindLastFlush(const std::string& scope_id) = 0;
};

// One manifest line that a new revision sets: entry `entry_id` is at `entry_version_id`, active or
// not.
struct ManifestUpdate {
  std::string entry_id;
  std::string entry_version_id;
  bool active = true;
};

// Everything one revision writes. Cost of committing is O(size of this), never O(entries in
// memory). The store updates its search projections (full text) in the same transaction.
struct NewRevision {
  RevisionInfo info;  // info.memory.revision must be head + 1
  std::vector<EntryVersion>
      new_versions;  // versions created by this revision (version 1 = new entry)
  std::vector<ManifestUpdate> manifest;  // lines that change at this revision
  // Vectors of the new versions, computed before the transaction; a version without one is
  // recorded as missing (the embedder was down) for a later reindex.
  std::string vector_profile;                                   // empty: no embedder configured
  std::unordered_map<std::string, std::vector<float>> vectors;  // entry_version_id -> vector
  // Graph edges this revision adds (their revision is this one), each on a version it creates.
  std::vector<GraphEdge> edges;
};

// One batch of the audit log's retention (service/admin/audit_service.h): the rows it may delete.
// Refused requests' rows are those whose result is "denied" (401, 403, 429) or "dropped" (the
// count of denials past the queue). The newest row is never deleted, so seq keeps growing.
struct AuditPrune {
  int64_t before_ms = 0;         // rows older than this (0: none by age)
  int64_t denied_before_ms = 0;  // refused requests' rows older than this (0: none by age)
  int64_t denied_keep = 0;       // refused requests' rows past the newest this many (0: no cap)
  int64_t limit = 1000;          // at most this many rows in all
};

class WriteTxn : public ReadTxn {
 public:
  // Creates a scope and its default memory artifact (revision 0).
  virtual Result<Scope> CreateScope(const std::string& key) = 0;
  // Appends a revision. Fails with Conflict if the artifact's head moved (info.memory.revision is
  // not head + 1), which the service checks first; the check here is the last line of defence.
  virtual Status CommitRevision(const NewRevision& rev) = 0;
  // A hint, answers unchanged: the write will ask FindActiveByHash(a, content_hash), `a` the
  // artifact it looks up next (FindArtifact). A store may send that question with the lookup
  // (PostgreSQL: with the lock, one round trip fewer a remember).
  virtual void ExpectActiveByHash(const std::string& content_hash) { (void)content_hash; }

  // Reindexing (projection only, no revision): makes `profile` the artifact's vector profile,
  // lists head entries whose vector is missing or of another profile (after `after_entry_id`),
  // and stores their new vectors.
  virtual Status SetVectorProfile(const std::string& artifact_id, const std::string& profile) = 0;
  virtual Result<std::vector<EntryVersion>> VectorBacklog(const std::string& artifact_id,
                                                          const std::string& after_entry_id,
                                                          int limit) = 0;
  virtual Status PutVectors(const std::string& artifact_id, const std::string& profile,
                            const std::unordered_map<std::string, std::vector<float>>& vectors) = 0;

  // Creates the scope's default artifact of `family` (revision 0).
  virtual Result<Artifact> CreateArtifact(const std::string& scope_id,
                                          const std::string& family) = 0;
  // Appends handoff revision `h.ref.revision`, which must be the artifact's head + 1 (else
  // Conflict), with the sources and artifacts it cites as the revision's lineage.
  virtual Status CommitHandoff(const Handoff& h, const std::string& reason,
                               const std::vector<std::string>& lineage) = 0;

  // Appends `source` to its scope's log at the next position (and its full-text row); fills in
  // position and returns it.
  virtual Result<Source> AppendSource(Source source) = 0;
  virtual Status SetCursor(const std::string& scope_id, const std::string& artifact_id,
                           const std::string& consumer, int64_t position) = 0;

  // Adds to the scope's daily aggregate (an atomic increment; a missing token count makes the
  // bucket's count unknown from then on).
  virtual Status AddModelUsage(const std::string& scope_id, const std::string& date,
                               const std::string& purpose, const std::string& operation,
                               const ModelUsage& usage) = 0;
  virtual Status AddRecall(const std::string& scope_id, const std::string& date,
                           const std::string& estimator_id, const std::string& estimator_version,
                           const RecallMeasurement& value) = 0;

  // Tokens: a new one (Conflict if a live token has the name); revoking the live token of `name`
  // (false: there is none).
  virtual Status CreateToken(const ApiToken& token) = 0;
  virtual Result<bool> RevokeToken(const std::string& name, int64_t at_ms) = 0;
  // Appends an audit row (seq assigned); an empty scope_id is looked up from `artifact_id` when
  // that is given. Audited() calls it for every write; denied requests come in their own writes.
  virtual Status AppendAudit(const AuditRecord& row, const std::string& artifact_id = "") = 0;
  // Deletes what `prune` allows, oldest first, at most prune.limit rows; returns how many. Reads
  // only the oldest rows (and refused rows through their own index): cheap at any log size.
  virtual Result<int64_t> PruneAudit(const AuditPrune& prune) = 0;

  // Review. Writes candidate version `c.current` (when `new_version`: it must not exist yet) and
  // sets the candidate's head to `c` (created at version 1).
  virtual Status SaveCandidate(const ArtifactCandidate& c, bool new_version) = 0;
  // A new Experience artifact of the scope (revision 0; not a default artifact).
  virtual Result<Artifact> CreateExperience(const std::string& scope_id) = 0;
  // Appends Experience revision `e.ref.revision`, which must be the artifact's head + 1 (else
  // Conflict), with its evidence as the revision's lineage.
  virtual Status CommitExperience(const Experience& e, const std::string& reason,
                                  const std::vector<std::string>& lineage) = 0;
  // A catalog record at its `version`: version 1 is inserted, a later one replaces version − 1
  // (else Conflict: another write moved it), and the revision is appended with `actor` and `now`.
  virtual Status PutReportProject(const ReportProject& p, const std::string& actor,
                                  int64_t now) = 0;
  virtual Status PutReportWorkstream(const ReportWorkstream& w, const std::string& actor,
                                     int64_t now) = 0;
  // A binding at its `version`, as PutReportProject (no revision history: the record is the
  // whole of it).
  virtual Status PutWorkspaceBinding(const WorkspaceBinding& b, int64_t now) = 0;
  // Appends an Activity Event (its cursor is the next of the sequence, set on `a`); Conflict when
  // (source, source_event_id) is taken.
  virtual Status AppendReportActivity(ReportActivity& a) = 0;
  // Deletes the Project's Activity Events observed before `before_ms`, the oldest first and at
  // most `limit` of them (0: all); how many. The sequence is not rewound.
  virtual Result<int64_t> PurgeReportActivities(const std::string& project_id, int64_t before_ms,
                                                int64_t limit = 0) = 0;
  // A new managed Skill artifact of the scope (revision 0), and its revisions, as Experience's.
  virtual Result<Artifact> CreateSkill(const std::string& scope_id) = 0;
  virtual Status CommitSkill(const Skill& s, const std::string& reason,
                             const std::vector<std::string>& lineage) = 0;
  // Sets (or, with nullopt, clears) one setting of the scope.
  virtual Status PutScopeSetting(const std::string& scope_id, const std::string& name,
                                 const std::optional<std::string>& value) = 0;
  // Replaces the scope's last-flush record; the flush writes it in its own transaction.
  virtual Status PutLastFlush(const std::string& scope_id, int64_t at_ms,
                              const std::string& record) = 0;

  // What this transaction's current write changed, for its audit row (store/audit_trail.h);
  // backends note every change here.
  AuditTrail& audit_trail() { return trail_; }

 private:
  AuditTrail trail_;
};

class Store {
 public:
  virtual ~Store() = default;
  virtual Status Read(const std::function<Status(ReadTxn&)>& fn) = 0;
  // Every write names who it is for (`actor`): its audit row's actor, operation and request id.
  virtual Status Write(const Actor& actor, const std::function<Status(WriteTxn&)>& fn) = 0;
  // Write, for a write that is about one scope, named `group` as the caller knows it (a key or a
  // scope id). A store may run concurrent writes in one transaction (PostgreSQL's group commit,
  // pg_store.h: of one group, or of several whose rows no other transaction holds), each still
  // with its own result; the contract is Write's. A hint, not a promise: the write still locks
  // whatever it touches. A long write (a batch) should call Write: grouped, it holds up the
  // writes it shares its group with, other scopes' too, for its whole length.
  virtual Status WriteFor(const std::string& group, const Actor& actor,
                          const std::function<Status(WriteTxn&)>& fn) {
    (void)group;
    return Write(actor, fn);
  }
  // Whether a write's reads that need no lock (the reconcile gate's lookup, write_gates.h) are
  // cheaper on a snapshot before its transaction than inside it. PostgreSQL: yes, they then run
  // beside the scope's other writers instead of under its lock (one scope, 4 clients: 111 → 162
  // remember/s). SQLite: no, its one writer connection keeps its page cache and the gate's reads
  // (gate_reads.h) from commit to commit, while every commit resets a reader connection's cache,
  // so the same lookup on a reader costs several times more (597 → 423 remember/s, measured when
  // reads also used a memory map; docs/write-gates.md).
  virtual bool ReadsBeforeWritesPay() const { return false; }
  // A value that changes whenever any process committed a token change (create, revoke), cheap
  // to read without a transaction: the token cache (service/admin/token_service.h) holds while it
  // stays the same. Changed before the write that changed the tokens returns.
  virtual std::string TokensStamp() = 0;
  // Runs `job` (a background pass: backfill, scheduled flushes) unless another process sharing
  // this store is running the job of that name right now; returns whether it ran. SQLite: one
  // process has the data directory, so it always runs. PostgreSQL: a session advisory lock on
  // the job's name, released when the pass ends or its server dies, so several servers never
  // do one pass twice at once.
  virtual bool RunExclusive(const std::string& name, const std::function<void()>& job) {
    (void)name;
    job();
    return true;
  }
};

}  // namespace pc
