// The queries of ReadTxn / WriteTxn on one PostgreSQL connection inside an open transaction
// (store/postgres/pg_store.h opens it: REPEATABLE READ, so a read callback sees one snapshot and a
// write that raced another fails with a serialization error and is run again).
//
// The same rows as the SQLite store, table for table; what differs is full text (pg_text.cc: our
// own tokenizer's terms in posting tables, ranked by BM25 computed here) and that nothing is
// deferred (every statement goes to the server as it is made).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_gate_lists.h"
#include "store/store.h"
#include "store/store_rows.h"  // JoinLines, SplitLines

namespace pc::pg {

// Statement parameters: text values, NULL as nullopt.
using Params = std::vector<std::optional<std::string>>;
inline std::string P(int64_t v) { return std::to_string(v); }
inline std::string P(int v) { return std::to_string(v); }
inline std::string P(bool v) { return v ? "t" : "f"; }
inline bool Bool(const Rows& r, int row, int col) { return r.Text(row, col) == "t"; }
// A PostgreSQL array literal of text values: {"a","b\"c"}.
std::string TextArray(const std::vector<std::string>& items);

// The entry_versions columns (as v) that ReadVersion reads, in order.
inline constexpr const char* kVersionColumns =
    "v.entry_version_id, v.entry_id, v.version, v.previous_version_id, v.kind, v.text, "
    "v.content_hash, v.source_refs, v.created_by_revision, v.reason, v.created_at, v.valid_until";
inline constexpr int kVersionColumnCount = 12;
// FROM the entries of artifact $1 that revisions ($2, $3] changed (c.entry_id), each with its
// manifest line at $3 (m.active, one index probe: LATERAL … LIMIT 1) and that line's version (v).
inline constexpr const char* kChangedLinesFrom =
    " FROM (SELECT DISTINCT entry_id FROM revision_changes"
    "  WHERE artifact_id = $1 AND revision > $2 AND revision <= $3) c"
    " CROSS JOIN LATERAL (SELECT h.active, h.entry_version_id FROM manifest h"
    "  WHERE h.artifact_id = $1 AND h.entry_id = c.entry_id AND h.from_revision <= $3"
    "  AND (h.to_revision IS NULL OR h.to_revision > $3)"
    "  ORDER BY h.from_revision DESC LIMIT 1) m"
    " JOIN entry_versions v ON v.entry_version_id = m.entry_version_id";
EntryVersion ReadVersion(const Rows& r, int row, int at);
// Column 0 is m.active (a boolean), then the version columns.
ManifestItem ReadManifestItem(const Rows& r, int row);

// bytea as PostgreSQL's hex text form ("\x0a1b…"), both ways.
std::string HexBytes(const void* data, size_t size);
std::vector<float> FloatsFromHex(const std::string& hex);

// Full-text indexes (pg_text.cc): a memory's head entries (owner = artifact id, doc =
// entries.doc) or a scope's source log (owner = scope id, doc = position).
enum class TextKind { kMemory = 0, kSources = 1 };

// What ChangedItems read in one group's transaction (PgStore::RunPass), by (artifact, after): the
// group's writes mostly looked their near-duplicates up at the same revision before it, and each
// brings its lookup to a head one revision further (write_gates.h), so the next reads only the
// revisions since the last. The lines at a revision under the scope's lock never change, except
// by a rollback to a savepoint, which numbers its revisions again: it clears this.
struct ChangedLinesRead {
  int64_t upto = 0;
  std::vector<ManifestItem> items;  // by entry_id, in byte order
  // To revision `to`, with the lines at `to` of the entries changed after `upto`.
  void BringTo(int64_t to, std::vector<ManifestItem> lines);
};
using ChangedLinesMemo = std::map<std::pair<std::string, int64_t>, ChangedLinesRead>;

// An index's totals (text_stats).
struct TextIndexTotals {
  int64_t docs = 0, tokens = 0, retired = 0;
};

// A revision a write made of new entries only, as the gate's catch-up would read it once
// committed (GateLists::Note): its changes in order, each entry's document number answered by the
// entry's INSERT … RETURNING when the write's statements are flushed.
struct OwnRevision {
  std::string memory;
  int64_t revision = 0;
  std::vector<GateLists::Change> changes;   // doc 0 until Resolve
  std::vector<std::unique_ptr<Rows>> docs;  // changes[i]'s INSERT answer: where Conn::Send puts it
  std::unordered_map<std::string, size_t> at;  // an entry's change, by entry_id
  // Fills each change's doc from its answer; false when one is missing (not to be noted).
  bool Resolve();
};

class PgTxn final : public WriteTxn {
 public:
  // `writing`: the artifacts a write looks up are locked (FOR UPDATE) until it ends, so writes of
  // one scope take turns and each sees the last one's commit (pg_store.h).
  // `gate_lists`: the server's kept postings reads (pg_gate_lists.h), for a read's lookup.
  // `changed`: the group's ChangedItems reads (above), for a write.
  PgTxn(Conn& conn, bool writing, GateLists* gate_lists = nullptr,
        ChangedLinesMemo* changed = nullptr)
      : c_(conn),
        writing_(writing),
        gate_lists_(writing ? nullptr : gate_lists),
        changed_(writing ? changed : nullptr) {}
  bool writing() const override { return writing_; }
  // A write of a group that spans scopes (pg_store.h): every row it locks is locked NOWAIT, so
  // the group never waits for a lock while it holds others; a row locked elsewhere fails its
  // statement with 55P03 (lock_not_available), and the write runs again on its scope's own lane.
  void LockWithoutWaiting() { nowait_ = writing_; }
  // A write's revisions of new entries only are added to `*to`, for the server's gate lists
  // once they are durable (PgStore): the next lookup then reads nothing for them.
  void NoteOwnRevisionsIn(std::vector<OwnRevision>* to) { own_ = writing_ ? to : nullptr; }

  Result<std::optional<Scope>> FindScope(const std::string& scope_id) override;
  Result<std::optional<Scope>> FindScopeByKey(const std::string& key) override;
  Result<std::vector<Scope>> ListScopes(const std::string& after, int limit) override;
  Result<std::optional<Artifact>> FindArtifact(const std::string& artifact_id) override;
  Result<std::optional<Artifact>> FindDefaultArtifact(const std::string& scope_id,
                                                      const std::string& family) override;
  Result<std::optional<Handoff>> FindHandoff(const std::string& artifact_id,
                                             int64_t revision) override;
  Result<std::vector<Handoff>> ListHandoffs(const std::string& artifact_id, int64_t before,
                                            int limit) override;
  Result<Artifact> CreateArtifact(const std::string& scope_id, const std::string& family) override;
  Status CommitHandoff(const Handoff& h, const std::string& reason,
                       const std::vector<std::string>& lineage) override;
  Result<std::vector<SourceHit>> SearchSources(const std::string& scope_id, const TextQuery& query,
                                               int limit) override;
  Result<std::vector<ManifestItem>> ListManifest(const std::string& artifact_id, int64_t revision,
                                                 bool include_inactive,
                                                 const std::string& after_entry_id,
                                                 int limit) override;
  Result<std::optional<ManifestItem>> FindManifestItem(const std::string& artifact_id,
                                                       int64_t revision,
                                                       const std::string& entry_id) override;
  Result<std::optional<ManifestItem>> FindActiveByHash(const std::string& artifact_id,
                                                       const std::string& content_hash) override;
  Result<std::vector<RevisionInfo>> ListRevisions(const std::string& artifact_id, int64_t before,
                                                  int limit) override;
  Result<std::optional<RevisionInfo>> FindRevision(const std::string& artifact_id,
                                                   int64_t revision) override;
  Result<std::vector<EntryVersion>> ListEntryVersions(const std::string& entry_id,
                                                      int64_t after_version, int limit) override;
  Result<std::optional<EntryVersion>> FindEntryVersion(const std::string& version_id) override;
  Result<std::optional<std::string>> FindEntryArtifact(const std::string& entry_id) override;
  Result<std::vector<ExpiredItem>> ListExpired(int64_t after_ms, int64_t until_ms,
                                               int limit) override;
  Result<std::vector<TextHit>> SearchText(const std::string& artifact_id, const TextQuery& query,
                                          bool include_inactive, int limit) override;
  Result<std::vector<ManifestItem>> SharedTermCandidates(const std::string& artifact_id,
                                                         const TextQuery& terms, int per_term,
                                                         int limit, int recent) override;

  Result<VectorState> GetVectorState(const std::string& artifact_id) override;
  Status ScanVectors(const std::string& artifact_id, const std::string& profile,
                     bool include_inactive, const VectorVisitor& visit) override;
  Status VisitVectorRows(const std::string& profile, const std::vector<std::string>& entry_ids,
                         const VectorVisitor& visit) override;
  Result<std::vector<std::string>> ChangedEntries(const std::string& artifact_id, int64_t after,
                                                  int64_t upto, int64_t limit = -1) override;
  Result<std::vector<ManifestItem>> ChangedItems(const std::string& artifact_id, int64_t after,
                                                 int64_t upto) override;

  Result<std::vector<Source>> ListSources(const std::string& scope_id, int64_t after,
                                          int limit) override;
  Result<std::vector<Source>> ListSourcesOfKind(const std::string& scope_id,
                                                const std::string& kind, int64_t after,
                                                int limit) override;
  Result<int64_t> SourceHighWatermark(const std::string& scope_id) override;
  Result<std::optional<Source>> FindSourceByIdempotencyKey(const std::string& scope_id,
                                                           const std::string& key) override;
  Result<std::optional<Source>> FindSourceByPublicId(const std::string& scope_id,
                                                     const std::string& public_id) override;
  Result<int64_t> GetCursor(const std::string& scope_id, const std::string& artifact_id,
                            const std::string& consumer) override;

  Result<Scope> CreateScope(const std::string& key) override;
  Status CommitRevision(const NewRevision& rev) override;
  void ExpectActiveByHash(const std::string& content_hash) override {
    if (writing_) expected_hash_ = content_hash;
  }
  Status SetVectorProfile(const std::string& artifact_id, const std::string& profile) override;
  Result<std::vector<EntryVersion>> VectorBacklog(const std::string& artifact_id,
                                                  const std::string& after_entry_id,
                                                  int limit) override;
  Status PutVectors(const std::string& artifact_id, const std::string& profile,
                    const std::unordered_map<std::string, std::vector<float>>& vectors) override;
  Result<Source> AppendSource(Source source) override;
  Status SetCursor(const std::string& scope_id, const std::string& artifact_id,
                   const std::string& consumer, int64_t position) override;
  Result<std::vector<Inventory::Count>> CountArtifactsByFamily(
      const std::string& scope_id) override;
  Result<std::vector<Inventory::Count>> CountHeadEntriesByKind(
      const std::string& artifact_id) override;
  Result<std::vector<UsageRow>> ListModelUsage(const std::string& scope_id, const std::string& from,
                                               const std::string& to) override;
  Result<std::vector<RecallRow>> ListRecall(const std::string& scope_id,
                                            const std::string& estimator_id,
                                            const std::string& estimator_version,
                                            const std::string& from,
                                            const std::string& to) override;
  Status AddModelUsage(const std::string& scope_id, const std::string& date,
                       const std::string& purpose, const std::string& operation,
                       const ModelUsage& usage) override;
  Status AddRecall(const std::string& scope_id, const std::string& date,
                   const std::string& estimator_id, const std::string& estimator_version,
                   const RecallMeasurement& value) override;
  Result<std::optional<ApiToken>> FindTokenByHash(const std::string& secret_hash) override;
  Result<std::vector<ApiToken>> ListTokens() override;
  Result<std::vector<AuditRecord>> ListAudit(const AuditQuery& query) override;
  Status CreateToken(const ApiToken& token) override;
  Result<bool> RevokeToken(const std::string& name, int64_t at_ms) override;
  Status AppendAudit(const AuditRecord& row, const std::string& artifact_id) override;
  Result<int64_t> PruneAudit(const AuditPrune& prune) override;
  // Review (pg_review.cc).
  Result<std::optional<ArtifactCandidate>> FindCandidate(const std::string& scope_id,
                                                         const std::string& candidate_id) override;
  Result<std::vector<ArtifactCandidate>> ListCandidates(const std::string& scope_id,
                                                        CandidateStatus status,
                                                        const std::string& family,
                                                        const std::string& after,
                                                        int limit) override;
  Result<std::optional<CandidateVersion>> FindCandidateVersion(const std::string& scope_id,
                                                               const std::string& candidate_id,
                                                               int64_t version) override;
  Result<std::vector<CandidateCount>> CountCandidates(const std::string& scope_id) override;
  Result<std::optional<Experience>> FindExperience(const std::string& artifact_id,
                                                   int64_t revision) override;
  Result<std::vector<Experience>> ListExperienceHeads(const std::string& scope_id,
                                                      int limit) override;
  Status SaveCandidate(const ArtifactCandidate& c, bool new_version) override;
  Result<Artifact> CreateExperience(const std::string& scope_id) override;
  Result<std::optional<Skill>> FindSkill(const std::string& artifact_id, int64_t revision) override;
  Result<Artifact> CreateSkill(const std::string& scope_id) override;
  Result<std::optional<ReportProject>> FindReportProject(const std::string& project_id) override;
  Result<std::optional<ReportProject>> FindReportProjectByKey(const std::string& key) override;
  Result<std::vector<ReportProject>> ListReportProjects(const std::string& after, int limit,
                                                        bool include_archived) override;
  Result<std::vector<CatalogRevision<ReportProject>>> ListReportProjectRevisions(
      const std::string& project_id) override;
  Result<std::optional<ReportWorkstream>> FindReportWorkstream(
      const std::string& scope_id) override;
  Result<std::optional<ReportWorkstream>> FindReportWorkstreamByKey(
      const std::string& project_id, const std::string& key) override;
  Result<std::vector<ReportWorkstream>> ListReportWorkstreams(const std::string& project_id,
                                                              const std::string& after, int limit,
                                                              bool include_archived) override;
  Result<std::vector<CatalogRevision<ReportWorkstream>>> ListReportWorkstreamRevisions(
      const std::string& scope_id) override;
  Status PutReportProject(const ReportProject& p, const std::string& actor, int64_t now) override;
  Status PutReportWorkstream(const ReportWorkstream& w, const std::string& actor,
                             int64_t now) override;
  Result<std::optional<WorkspaceBinding>> FindWorkspaceBinding(
      const std::string& workspace_instance_id) override;
  Result<std::optional<ReportActivity>> FindReportActivity(
      const std::string& source, const std::string& source_event_id) override;
  Result<std::vector<ReportActivity>> ListReportActivities(const ActivityFilter& f) override;
  Result<int64_t> CountReportActivities(const ActivityFilter& f) override;
  Result<int64_t> ReportActivityHighWatermark() override;
  Status PutWorkspaceBinding(const WorkspaceBinding& b, int64_t now) override;
  Status AppendReportActivity(ReportActivity& a) override;
  Result<int64_t> PurgeReportActivities(const std::string& project_id, int64_t before_ms,
                                        int64_t limit) override;
  Status CommitSkill(const Skill& s, const std::string& reason,
                     const std::vector<std::string>& lineage) override;
  Result<std::map<std::string, std::string>> ListScopeSettings(
      const std::string& scope_id) override;
  Status PutScopeSetting(const std::string& scope_id, const std::string& name,
                         const std::optional<std::string>& value) override;
  Status CommitExperience(const Experience& e, const std::string& reason,
                          const std::vector<std::string>& lineage) override;
  Result<std::vector<GraphEdge>> ListGraphEdges(const std::string& artifact_id,
                                                int64_t revision) override;
  Result<GraphDelta> ListGraphChanges(const std::string& artifact_id, int64_t after,
                                      int64_t revision) override;
  Result<std::optional<std::string>> FindLastFlush(const std::string& scope_id) override;
  Status PutLastFlush(const std::string& scope_id, int64_t at_ms,
                      const std::string& record) override;

  // Builds one full-text index afresh from the rows it indexes, exactly as the writes would have
  // built it: a memory's head entries (`sources` false; owner = the artifact id) or a scope's
  // source log (`sources` true; owner = the scope id). The index's old rows go first. For rows
  // that came without their projection: `powercontext migrate` (pg_import.h; pg_text_rebuild.cc).
  Status RebuildTextIndex(const std::string& artifact_or_scope, bool sources);

 private:
  Result<Rows> ActivityQuery(const ActivityFilter& f, const char* what, bool count);
  // A Report record at `version`: version 1 `insert`ed, a later one `update`s version − 1 (else
  // Conflict naming `what`); both statements take `params`.
  Status PutAtVersion(int64_t version, const char* insert, const char* update, const Params& params,
                      const std::string& what);
  Status AppendCatalogRevision(const char* table, const char* key_column, const std::string& key,
                               int64_t version, const std::string& record, const std::string& actor,
                               int64_t now);
  // A new artifact of a reviewed family (Experience, Skill) at revision 0.
  Result<Artifact> CreateReviewedArtifact(const std::string& scope_id, const std::string& family,
                                          std::string_view prefix);
  Status PutGraphEdges(const NewRevision& rev);
  // Brings the group's ChangedItems reads that stood at the revision before `rev` to it.
  void NoteRevision(const NewRevision& rev);
  // The edges of ListGraphEdges(artifact_id, revision) added after revision `after`.
  Result<std::vector<GraphEdge>> GraphEdgesBetween(const std::string& artifact_id, int64_t after,
                                                   int64_t revision);
  Result<Rows> Q(const std::string& sql, const Params& params = {}) {
    return c_.Query(sql, params);
  }
  // As Q, on the statement's generic plan (Conn::QueryPlannedOnce): for a statement that
  // PostgreSQL, left to choose, plans at every call though its plan has one shape.
  Result<Rows> QOnce(const std::string& sql, const Params& params) {
    return c_.QueryPlannedOnce(sql, params);
  }
  // Several reads in one round trip (Conn::QueryEach): each one's rows, in order.
  Result<std::vector<Rows>> QEach(const std::vector<Conn::Statement>& statements) {
    return c_.QueryEach(statements);
  }
  // A change whose rows are not wanted: queued (Conn::Send), so a write's changes travel together;
  // its error is answered by the next statement, or when the store flushes the write's end.
  Status Send(const std::string& sql, const Params& params) { return c_.Send(sql, params); }
  // The locking clause of a write's lookups ("" in a read): of every row the query reads, or
  // of `table`'s only (LockOf).
  const char* Lock() const {
    return !writing_ ? "" : nowait_ ? " FOR UPDATE NOWAIT" : " FOR UPDATE";
  }
  std::string LockOf(const char* table) const {
    return !writing_ ? "" : std::string(" FOR UPDATE OF ") + table + (nowait_ ? " NOWAIT" : "");
  }
  Result<std::optional<Scope>> FindScopeWhere(const std::string& column, const std::string& value);
  Status LoadChanges(RevisionInfo& info);
  // Moves the artifact's head from r - 1 to r (Conflict if it is not at r - 1), adds
  // `vector_missing_delta` to its count of missing vectors in the same update, and writes the
  // revision row: what every artifact's commit starts with.
  Status AppendRevision(const std::string& artifact, int64_t r, const std::string& actor,
                        const std::string& reason, const std::vector<std::string>& lineage,
                        int64_t created_at_ms, int64_t vector_missing_delta = 0);
  // The entries a revision creates, by entry_id: each one's first text.
  using NewEntries = std::unordered_map<std::string, const std::string*>;
  // The artifact's vector rows for the revision's manifest, and its count of missing vectors
  // (pg_vectors.cc), less `counted`: what AppendRevision already added.
  Status ProjectVectors(const NewRevision& rev, const NewEntries& fresh, int64_t counted);
  // What ProjectVectors adds to the count when it is known without reading: a revision that only
  // creates entries and carries no vectors (no embedder) adds one per active entry. Else 0.
  static int64_t MissingOfNewEntries(const NewRevision& rev, const NewEntries& fresh);
  // Full text (pg_text.cc).
  Status IndexEntryText(const std::string& artifact_id, int64_t revision, const ManifestUpdate& u);
  Status IndexSourceText(const std::string& scope_id, int64_t position, const std::string& text);
  // A memory's document `doc` leaves its full-text index (its row, postings, share of the totals).
  Status RemoveEntryTextDoc(const std::string& artifact_id, int64_t doc);
  // A memory's document `doc`, which stays at its version, marked retired or not (`was`: as it
  // is): its row's flag and the totals' count, its postings as they are.
  Status MarkEntryTextDoc(const std::string& artifact_id, int64_t doc, bool was, bool retired);
  Status AddTextDoc(TextKind kind, const std::string& owner, int64_t doc, const std::string& text,
                    bool retired, const std::string& entry_version_id);
  // The same for an entry this transaction creates (its number looked up by the statements).
  // `terms`, when given: its index terms, sorted (GateLists::Change's).
  Status AddNewEntryText(const std::string& artifact_id, const std::string& entry_id,
                         const std::string& text, bool retired, const std::string& entry_version_id,
                         std::vector<std::string>* terms = nullptr);
  // Both: `doc` is the SQL of the document's number, $3 being `doc_param`.
  Status AddText(TextKind kind, const std::string& owner, const std::string& doc_param,
                 const char* doc, const std::string& text, bool retired,
                 const std::string& entry_version_id, std::vector<std::string>* terms = nullptr);
  // The note of `rev` (NoteOwnRevisionsIn), added to own_ with its changes but no document
  // numbers yet; null when it is not noted (not asked for, or it changes an existing entry).
  OwnRevision* StartOwnRevision(const NewRevision& rev, const NewEntries& fresh);
  struct Ranked {
    int64_t doc;
    double score;
    std::string entry_version_id;
    bool retired;
  };
  Result<std::vector<Ranked>> RankText(TextKind kind, const std::string& owner,
                                       const TextQuery& query, bool include_inactive, int limit);
  class TextRanker;  // RankText's plan and rankings (pg_text.cc)
  // SharedTermCandidates' steps (pg_text.cc): the server's kept lists (and newest `recent`
  // changes) brought to `head` (false: not usable by this lookup); `terms`' newest `cap` active
  // documents each, read from the index; the active versions of `docs` (empty where retired),
  // kept or read.
  Result<bool> CatchUpGateLists(const std::string& memory, int64_t head, int recent);
  Status ReadTermLists(const std::string& memory, int64_t retired, size_t cap,
                       const std::vector<std::string>& terms,
                       std::vector<std::vector<int64_t>>& lists);
  Status CandidateVersions(const std::string& memory, int64_t head, bool kept,
                           const std::vector<int64_t>& docs,
                           std::vector<std::optional<EntryVersion>>& versions);

  Conn& c_;
  bool writing_;
  bool nowait_ = false;        // LockWithoutWaiting
  GateLists* gate_lists_;      // only a read's: a write's uncommitted rows are never kept
  ChangedLinesMemo* changed_;  // only a write's
  std::vector<OwnRevision>* own_ = nullptr;  // only a write's
  // The settings of the scope this transaction found (FindScopeWhere) or, writing, whose
  // artifact it locked (FindArtifact), read with it; until it changes one.
  struct ScopeSettingsRead {
    std::string scope_id;
    std::map<std::string, std::string> settings;
  };
  std::optional<ScopeSettingsRead> settings_;
  // ExpectActiveByHash: the hash to ask about with the next lock, then its answer, good for
  // FindActiveByHash(artifact_id, hash) until the transaction changes a row.
  struct ActiveByHashRead {
    std::string artifact_id, hash;
    uint64_t changes = 0;  // Conn::changes() when it was read
    Rows rows;
  };
  // A read's default memory as its scope was found with it (FindScopeWhere): its head, full-text
  // totals and vector state. In the read's one snapshot they hold throughout, so the gate's lookup
  // and a search of that memory do not ask again (a round trip fewer for each).
  struct MemoryRead {
    std::string artifact_id;
    int64_t head = 0;
    bool indexed = false;  // text_stats has the memory's row (not before its first document)
    TextIndexTotals totals;
    VectorState vectors;
  };
  std::optional<MemoryRead> memory_read_;
  // memory_read_ when it is `artifact_id`'s, else null.
  const MemoryRead* MemoryReadOf(const std::string& artifact_id) const {
    return memory_read_ && memory_read_->artifact_id == artifact_id ? &*memory_read_ : nullptr;
  }
  std::string expected_hash_;
  std::optional<ActiveByHashRead> active_by_hash_;
  // Keeps the settings of `scope_id` read with it: rows of a LEFT JOIN of scope_settings, the
  // name in `name_column` (NULL: none) and the value after it.
  void KeepSettings(const std::string& scope_id, const Rows& r, int name_column);
};

}  // namespace pc::pg
