// The queries of ReadTxn / WriteTxn on one SQLite connection inside an open transaction.
#pragma once

#include "store/sqlite/db.h"
#include "store/store.h"

namespace pc::sqlite {

struct TextMemo;

// FTS5 syntax for "any (or all) of these phrases" in index `owner`: each phrase double-quoted
// (quotes doubled inside) and marked with the index's tag, so nothing the user typed is an
// operator and nothing of another index matches (sqlite_text.cc).
std::string MatchExpression(const TextQuery& q, int64_t owner, const char* joiner = " OR ");

// One index of the shared full-text tables: a memory's head entries (memory_fts, owner =
// artifacts.rowid) or a scope's source log (source_fts, owner = scopes.rowid), with its own
// statistics (fts_stats): documents, text tokens, and retired rows (one `state` token each).
struct TextIndex {
  enum Kind { kMemory = 0, kSources = 1 } kind;
  int64_t owner;
  int64_t docs = 0, tokens = 0, retired = 0;
  int64_t removed = 0;  // rows ever removed from it (see common_phrases.h)
};
// When every phrase of a short query is common, this many of the newest matching documents are
// ranked (see SqliteTxn::SearchText).
inline constexpr int64_t kRecentCandidates = 200;

// Full-text rows of a group of writes, written after all of them (SqliteStore::RunGroup). FTS5
// turns its pending rows into a new index segment at every savepoint, and at every later
// statement that needs a statement journal; written last, a group makes one segment per commit
// instead of two or three per write (and the merging they cause).
struct TextRows {
  struct Row {
    enum Kind { kRemove, kMemory, kSource } kind;
    int64_t owner;  // the index's owner (TextIndex)
    int64_t rowid;  // kRemove, kMemory: entries.rowid; kSource: the source's position
    std::string text, state, entry_version_id;  // kMemory: all three; kSource: text
  };
  std::vector<Row> rows;
};

class SqliteTxn final : public WriteTxn {
 public:
  // With `deferred`, full-text rows are collected there instead of written (the caller writes
  // them with WriteTextRows before the commit); a full-text search in this transaction writes
  // them first, so it sees them.
  // `writing`: a write's transaction (ReadTxn::writing). `memo`: what the store's read
  // transactions learned of its full-text indexes (text_memo.h), for a read transaction's
  // full-text searches.
  SqliteTxn(Db& db, bool writing, TextRows* deferred = nullptr, TextMemo* memo = nullptr)
      : db_(db), deferred_(deferred), memo_(memo), writing_(writing) {}
  bool writing() const override { return writing_; }
  Status WriteTextRows(TextRows& rows);

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
  // Tokens and the audit log (sqlite_security.cc).
  Result<std::optional<ApiToken>> FindTokenByHash(const std::string& secret_hash) override;
  Result<std::vector<ApiToken>> ListTokens() override;
  Result<std::vector<AuditRecord>> ListAudit(const AuditQuery& query) override;
  Status CreateToken(const ApiToken& token) override;
  Result<bool> RevokeToken(const std::string& name, int64_t at_ms) override;
  Status AppendAudit(const AuditRecord& row, const std::string& artifact_id) override;
  Result<int64_t> PruneAudit(const AuditPrune& prune) override;
  // Review (sqlite_review.cc).
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

 private:
  // A memory_fts row was inserted or removed: the writer's kept reads follow it.
  void FollowKeptReads(const std::string& text, int64_t rowid, bool added);
  Result<Stmt> ActivityQuery(const ActivityFilter& f, const char* what, bool count);
  // A new artifact of a reviewed family (Experience, Skill) at revision 0.
  Result<Artifact> CreateReviewedArtifact(const std::string& scope_id, const std::string& family,
                                          std::string_view prefix);
  Status PutGraphEdges(const NewRevision& rev);
  // The edges of ListGraphEdges(artifact_id, revision) added after revision `after`.
  Result<std::vector<GraphEdge>> GraphEdgesBetween(const std::string& artifact_id, int64_t after,
                                                   int64_t revision);
  Result<std::optional<Scope>> FindScopeWhere(const std::string& column, const std::string& value);
  Status LoadChanges(RevisionInfo& info);
  Result<bool> IsHead(const std::string& artifact_id, int64_t revision);
  // Moves the artifact's head from r - 1 to r (Conflict if it is not at r - 1) and writes the
  // revision row: what every artifact's commit starts with.
  Status AppendRevision(const std::string& artifact, int64_t r, const std::string& actor,
                        const std::string& reason, const std::vector<std::string>& lineage,
                        int64_t created_at_ms);
  // The entry's full-text row for `u` in memory `owner` (its artifact's rowid).
  Status ProjectText(int64_t owner, int64_t revision, const ManifestUpdate& u);
  Status PutTextRow(TextRows::Row row);  // deferred, or written now
  Status FlushDeferredText();
  // A short query's phrases split by how many documents have them (see SearchText).
  struct TextPlan {
    TextQuery rare, common;
    std::string rare_docs;  // the documents each rare phrase is in, "12 5 88" (for pc_bm25)
  };
  Result<TextPlan> PlanText(const TextIndex& index, const TextQuery& query);
  // Appends the best `limit` rows of the memory's index matching the plan's rare phrases, by
  // pc_bm25 (with the index's statistics).
  Status RankText(const TextIndex& index, const TextPlan& plan, bool include_inactive, int limit,
                  std::vector<TextHit>& out);
  // Appends (up to `limit` in all, no entry twice) the best of the newest matching rows, by
  // pc_tf_rank.
  Status RankRecentText(const TextIndex& index, const std::string& phrases, bool include_inactive,
                        int limit, std::vector<TextHit>& out);
  Status ReadTextHits(Stmt& s, std::vector<TextHit>& out);
  // The rowid of the row of `table` whose `column` is `id` (NotFound otherwise): an index owner.
  Result<int64_t> RowidOf(const char* table, const char* column, const std::string& id);
  Result<TextIndex> LoadTextIndex(TextIndex::Kind kind, const std::string& id);
  // Writes the entry's vector row for `u`; returns the change in the artifact's missing count.
  Result<int64_t> ProjectVector(const std::string& artifact_id, const std::string& artifact_profile,
                                const ManifestUpdate& u, const NewRevision& rev);
  Status ProjectVectors(const NewRevision& rev);
  Db& db_;
  TextRows* deferred_;
  TextMemo* memo_;
  bool writing_;
};

}  // namespace pc::sqlite
