#include "store/sqlite/sqlite_txn.h"

#include <algorithm>

#include "common/clock.h"
#include "common/ids.h"

namespace pc::sqlite {
namespace {

// Lists of ids (source refs, lineage) are stored newline-joined: ids never contain a newline.
std::string JoinLines(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back('\n');
    out += items[i];
  }
  return out;
}

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

constexpr const char* kVersionColumns =
    "v.entry_version_id, v.entry_id, v.version, v.previous_version_id, v.kind, v.text, "
    "v.content_hash, v.source_refs, v.created_by_revision, v.reason, v.created_at";
constexpr int kVersionColumnCount = 11;

EntryVersion ReadVersion(const Stmt& s, int at) {
  EntryVersion v;
  v.entry_version_id = s.Text(at);
  v.entry_id = s.Text(at + 1);
  v.version = s.Int(at + 2);
  v.previous_version_id = s.OptText(at + 3);
  v.kind = s.Text(at + 4);
  v.text = s.Text(at + 5);
  v.content_hash = s.Text(at + 6);
  v.source_refs = SplitLines(s.Text(at + 7));
  v.created_by_revision = s.Int(at + 8);
  v.reason = s.Text(at + 9);
  v.created_at_ms = s.Int(at + 10);
  return v;
}

ManifestItem ReadManifestItem(const Stmt& s) {
  // Column 0 is m.active, then the version columns.
  return ManifestItem{ReadVersion(s, 1), s.Int(0) != 0};
}

ChangeOp ParseOp(const std::string& s) {
  if (s == "revise") return ChangeOp::kRevise;
  if (s == "retire") return ChangeOp::kRetire;
  return ChangeOp::kAdd;
}

const std::string kManifestAt = std::string("SELECT m.active, ") + kVersionColumns +
                                " FROM manifest m JOIN entry_versions v"
                                " ON v.entry_version_id = m.entry_version_id"
                                " WHERE m.artifact_id = ?1 AND m.from_revision <= ?2"
                                " AND (m.to_revision IS NULL OR m.to_revision > ?2)";
// ?2 is bound but unused here so both forms take the same parameters.
const std::string kManifestAtHead = std::string("SELECT m.active, ") + kVersionColumns +
                                    " FROM manifest m JOIN entry_versions v"
                                    " ON v.entry_version_id = m.entry_version_id"
                                    " WHERE m.artifact_id = ?1 AND m.to_revision IS NULL"
                                    " AND ?2 = ?2";

}  // namespace

Result<std::optional<Scope>> SqliteTxn::FindScopeWhere(const std::string& column,
                                                       const std::string& value) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT s.scope_id, s.key, s.created_at, a.artifact_id, a.head_revision FROM scopes s"
      " JOIN artifacts a ON a.scope_id = s.scope_id AND a.family = 'memory' AND a.is_default = 1"
      " WHERE s." + column + " = ?1"));
  s.Bind(1, value);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Scope>();
  return std::optional<Scope>(Scope{s.Text(0), s.Text(1), s.Int(2), s.Text(3), s.Int(4)});
}

Result<std::optional<Scope>> SqliteTxn::FindScope(const std::string& scope_id) {
  return FindScopeWhere("scope_id", scope_id);
}

Result<std::optional<Scope>> SqliteTxn::FindScopeByKey(const std::string& key) {
  return FindScopeWhere("key", key);
}

Result<std::vector<Scope>> SqliteTxn::ListScopes(const std::string& after, int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT s.scope_id, s.key, s.created_at, a.artifact_id, a.head_revision FROM scopes s"
      " JOIN artifacts a ON a.scope_id = s.scope_id AND a.family = 'memory' AND a.is_default = 1"
      " WHERE s.scope_id > ?1 ORDER BY s.scope_id LIMIT ?2"));
  s.Bind(1, after).Bind(2, int64_t{limit});
  std::vector<Scope> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(Scope{s.Text(0), s.Text(1), s.Int(2), s.Text(3), s.Int(4)});
  }
  return out;
}

Result<std::optional<Artifact>> SqliteTxn::FindArtifact(const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT artifact_id, scope_id, family, head_revision, created_at FROM artifacts"
      " WHERE artifact_id = ?1"));
  s.Bind(1, artifact_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Artifact>();
  return std::optional<Artifact>(Artifact{s.Text(0), s.Text(1), s.Text(2), s.Int(3), s.Int(4)});
}

Result<bool> SqliteTxn::IsHead(const std::string& artifact_id, int64_t revision) {
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, FindArtifact(artifact_id));
  return a && a->head_revision == revision;
}

Result<std::vector<ManifestItem>> SqliteTxn::ListManifest(const std::string& artifact_id,
                                                          int64_t revision, bool include_inactive,
                                                          const std::string& after_entry_id,
                                                          int limit) {
  // At the head, the partial index of open intervals answers directly; at an older revision each
  // entry's intervals are searched for the one that covers it.
  PC_ASSIGN_OR_RETURN(bool head, IsHead(artifact_id, revision));
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare((head ? kManifestAtHead : kManifestAt) +
                                          " AND m.entry_id > ?3 AND (?4 OR m.active = 1)"
                                          " ORDER BY m.entry_id LIMIT ?5"));
  s.Bind(1, artifact_id).Bind(2, revision).Bind(3, after_entry_id);
  s.Bind(4, int64_t{include_inactive ? 1 : 0}).Bind(5, int64_t{limit});
  std::vector<ManifestItem> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadManifestItem(s));
  }
  return out;
}

Result<std::optional<ManifestItem>> SqliteTxn::FindManifestItem(const std::string& artifact_id,
                                                                int64_t revision,
                                                                const std::string& entry_id) {
  // The interval with the greatest start at or before `revision` is the only candidate: one
  // index probe, however many versions the entry has.
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(kManifestAt + " AND m.entry_id = ?3"
                                          " ORDER BY m.from_revision DESC LIMIT 1"));
  s.Bind(1, artifact_id).Bind(2, revision).Bind(3, entry_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<ManifestItem>();
  return std::optional<ManifestItem>(ReadManifestItem(s));
}

Result<std::optional<ManifestItem>> SqliteTxn::FindActiveByHash(const std::string& artifact_id,
                                                                const std::string& content_hash) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      std::string("SELECT m.active, ") + kVersionColumns +
      // CROSS JOIN fixes the order: find the (few) versions with this hash first, then their head
      // line; the other order scans the whole manifest.
      " FROM entry_versions v CROSS JOIN manifest m"
      " ON m.artifact_id = ?1 AND m.entry_id = v.entry_id AND m.to_revision IS NULL"
      " WHERE v.content_hash = ?2 AND m.entry_version_id = v.entry_version_id AND m.active = 1"
      " LIMIT 1"));
  s.Bind(1, artifact_id).Bind(2, content_hash);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<ManifestItem>();
  return std::optional<ManifestItem>(ReadManifestItem(s));
}

Status SqliteTxn::LoadChanges(RevisionInfo& info) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT op, entry_id, from_version_id, to_version_id FROM revision_changes"
      " WHERE artifact_id = ?1 AND revision = ?2 ORDER BY seq"));
  s.Bind(1, info.memory.artifact_id).Bind(2, info.memory.revision);
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    info.changes.push_back(Change{ParseOp(s.Text(0)), s.Text(1), s.OptText(2), s.Text(3)});
  }
  return Status::Ok();
}

Result<std::vector<RevisionInfo>> SqliteTxn::ListRevisions(const std::string& artifact_id,
                                                           int64_t before, int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT r.revision, r.actor, r.reason, r.lineage, r.created_at, a.family"
      " FROM revisions r JOIN artifacts a ON a.artifact_id = r.artifact_id"
      " WHERE r.artifact_id = ?1 AND (?2 = 0 OR r.revision < ?2)"
      " ORDER BY r.revision DESC LIMIT ?3"));
  s.Bind(1, artifact_id).Bind(2, before).Bind(3, int64_t{limit});
  std::vector<RevisionInfo> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    RevisionInfo info;
    info.memory = MemoryRef{s.Text(5), artifact_id, s.Int(0)};
    info.actor = s.Text(1);
    info.reason = s.Text(2);
    info.lineage = SplitLines(s.Text(3));
    info.created_at_ms = s.Int(4);
    out.push_back(std::move(info));
  }
  for (auto& info : out) PC_RETURN_IF_ERROR(LoadChanges(info));
  return out;
}

Result<std::optional<RevisionInfo>> SqliteTxn::FindRevision(const std::string& artifact_id,
                                                            int64_t revision) {
  PC_ASSIGN_OR_RETURN(auto list, ListRevisions(artifact_id, revision + 1, 1));
  if (list.empty() || list[0].memory.revision != revision) return std::optional<RevisionInfo>();
  return std::optional<RevisionInfo>(std::move(list[0]));
}

Result<std::vector<EntryVersion>> SqliteTxn::ListEntryVersions(const std::string& entry_id,
                                                               int64_t after_version, int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT ") + kVersionColumns +
                                          " FROM entry_versions v WHERE v.entry_id = ?1"
                                          " AND v.version > ?2 ORDER BY v.version LIMIT ?3"));
  s.Bind(1, entry_id).Bind(2, after_version).Bind(3, int64_t{limit});
  std::vector<EntryVersion> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadVersion(s, 0));
  }
  return out;
}

Result<std::optional<EntryVersion>> SqliteTxn::FindEntryVersion(const std::string& version_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT ") + kVersionColumns +
                                          " FROM entry_versions v WHERE v.entry_version_id = ?1"));
  s.Bind(1, version_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<EntryVersion>();
  return std::optional<EntryVersion>(ReadVersion(s, 0));
}

Result<std::optional<std::string>> SqliteTxn::FindEntryArtifact(const std::string& entry_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT artifact_id FROM entries WHERE entry_id = ?1"));
  s.Bind(1, entry_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(s.Text(0));
}

Result<Scope> SqliteTxn::CreateScope(const std::string& key) {
  Scope scope{NewId(kScopePrefix), key, NowMillis(), NewId(kMemoryPrefix)};
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "INSERT INTO scopes(scope_id, key, created_at) VALUES(?1, ?2, ?3)"));
    PC_RETURN_IF_ERROR(s.Bind(1, scope.scope_id).Bind(2, key).Bind(3, scope.created_at_ms).Run());
  }
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "INSERT INTO artifacts(artifact_id, scope_id, family, is_default, head_revision, created_at)"
      " VALUES(?1, ?2, ?3, 1, 0, ?4)"));
  s.Bind(1, scope.memory_artifact_id).Bind(2, scope.scope_id).Bind(3, std::string(kMemoryFamily));
  PC_RETURN_IF_ERROR(s.Bind(4, scope.created_at_ms).Run());
  PC_RETURN_IF_ERROR(EnsureTextTable(scope.memory_artifact_id));
  return scope;
}

Status SqliteTxn::AppendRevision(const std::string& artifact, int64_t r, const std::string& actor,
                                 const std::string& reason, const std::vector<std::string>& lineage,
                                 int64_t created_at_ms) {
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "UPDATE artifacts SET head_revision = ?2 WHERE artifact_id = ?1 AND head_revision = ?3"
        " RETURNING head_revision"));
    s.Bind(1, artifact).Bind(2, r).Bind(3, r - 1);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Conflict("the head of " + artifact + " moved; revision " + std::to_string(r) + " is taken");
  }
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "INSERT INTO revisions(artifact_id, revision, actor, reason, lineage, created_at)"
      " VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
  s.Bind(1, artifact).Bind(2, r).Bind(3, actor).Bind(4, reason);
  return s.Bind(5, JoinLines(lineage)).Bind(6, created_at_ms).Run();
}

Status SqliteTxn::CommitRevision(const NewRevision& rev) {
  const std::string& artifact = rev.info.memory.artifact_id;
  const int64_t r = rev.info.memory.revision;
  PC_RETURN_IF_ERROR(AppendRevision(artifact, r, rev.info.actor, rev.info.reason, rev.info.lineage,
                                    rev.info.created_at_ms));
  for (const EntryVersion& v : rev.new_versions) {
    if (v.version == 1) {
      PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
          "INSERT INTO entries(entry_id, artifact_id, created_revision) VALUES(?1, ?2, ?3)"));
      PC_RETURN_IF_ERROR(s.Bind(1, v.entry_id).Bind(2, artifact).Bind(3, r).Run());
    }
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "INSERT INTO entry_versions(entry_version_id, entry_id, version, previous_version_id, kind,"
        " text, content_hash, source_refs, created_by_revision, reason, created_at)"
        " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"));
    s.Bind(1, v.entry_version_id).Bind(2, v.entry_id).Bind(3, v.version);
    s.Bind(4, v.previous_version_id).Bind(5, v.kind).Bind(6, v.text).Bind(7, v.content_hash);
    s.Bind(8, JoinLines(v.source_refs)).Bind(9, r).Bind(10, v.reason).Bind(11, v.created_at_ms);
    PC_RETURN_IF_ERROR(s.Run());
  }
  int64_t seq = 0;
  for (const Change& c : rev.info.changes) {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "INSERT INTO revision_changes(artifact_id, revision, seq, op, entry_id, from_version_id,"
        " to_version_id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    s.Bind(1, artifact).Bind(2, r).Bind(3, ++seq).Bind(4, std::string(ChangeOpName(c.op)));
    PC_RETURN_IF_ERROR(s.Bind(5, c.entry_id).Bind(6, c.from_version_id).Bind(7, c.to_version_id).Run());
  }
  for (const ManifestUpdate& u : rev.manifest) {
    {
      PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
          "UPDATE manifest SET to_revision = ?3"
          " WHERE artifact_id = ?1 AND entry_id = ?2 AND to_revision IS NULL"));
      PC_RETURN_IF_ERROR(s.Bind(1, artifact).Bind(2, u.entry_id).Bind(3, r).Run());
    }
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "INSERT INTO manifest(artifact_id, entry_id, entry_version_id, active, from_revision,"
        " to_revision) VALUES(?1, ?2, ?3, ?4, ?5, NULL)"));
    s.Bind(1, artifact).Bind(2, u.entry_id).Bind(3, u.entry_version_id);
    PC_RETURN_IF_ERROR(s.Bind(4, int64_t{u.active ? 1 : 0}).Bind(5, r).Run());
    PC_RETURN_IF_ERROR(ProjectText(artifact, r, u));
  }
  return ProjectVectors(rev);
}

Result<std::string> SqliteTxn::TextTable(const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT rowid FROM artifacts WHERE artifact_id = ?1"));
  s.Bind(1, artifact_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound("no artifact " + artifact_id);
  return "fts_" + std::to_string(s.Int(0));  // an integer: a safe identifier
}

Status SqliteTxn::EnsureTextTable(const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(std::string table, TextTable(artifact_id));
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1"));
    s.Bind(1, table);
    PC_ASSIGN_OR_RETURN(bool exists, s.Step());
    if (exists) return Status::Ok();
  }
  // One FTS5 table per memory: BM25 statistics, and what a search costs, belong to that memory
  // alone (nothing crosses scopes). `state` holds "retired" for retired entries, so the default
  // search excludes them with a NOT over that short posting list; BM25 weighs `text` only.
  PC_RETURN_IF_ERROR(db_.Exec("CREATE VIRTUAL TABLE " + table +
                              " USING fts5(text, state, entry_version_id UNINDEXED,"
                              " tokenize = 'porter pc')"));
  PC_RETURN_IF_ERROR(db_.Exec("INSERT INTO " + table + "(" + table +
                              ", rank) VALUES('rank', 'bm25(1.0, 0.0)')"));
  PC_ASSIGN_OR_RETURN(Stmt fill, db_.Prepare(
      "INSERT INTO " + table + "(rowid, text, state, entry_version_id)"
      " SELECT e.rowid, v.text, CASE WHEN m.active THEN '' ELSE 'retired' END, v.entry_version_id"
      " FROM manifest m JOIN entries e ON e.entry_id = m.entry_id"
      " JOIN entry_versions v ON v.entry_version_id = m.entry_version_id"
      " WHERE m.artifact_id = ?1 AND m.to_revision IS NULL"));
  return fill.Bind(1, artifact_id).Run();
}

Status SqliteTxn::ProjectText(const std::string& artifact_id, int64_t revision, const ManifestUpdate& u) {
  PC_ASSIGN_OR_RETURN(std::string table, TextTable(artifact_id));
  int64_t rowid = 0, created = 0;
  std::string text;
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "SELECT e.rowid, e.created_revision, v.text FROM entries e, entry_versions v"
        " WHERE e.entry_id = ?1 AND v.entry_version_id = ?2"));
    s.Bind(1, u.entry_id).Bind(2, u.entry_version_id);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Internal("no version " + u.entry_version_id + " of entry " + u.entry_id);
    rowid = s.Int(0);
    created = s.Int(1);
    text = s.Text(2);
  }
  if (created != revision)  // the entry had a row before this revision
    PC_RETURN_IF_ERROR(PutTextRow({TextRows::Row::kRemove, table, rowid, "", "", ""}));
  return PutTextRow({TextRows::Row::kMemory, table, rowid, std::move(text), u.active ? "" : "retired",
                     u.entry_version_id});
}

Status SqliteTxn::PutTextRow(TextRows::Row row) {
  if (deferred_) {
    deferred_->rows.push_back(std::move(row));
    return Status::Ok();
  }
  TextRows now;
  now.rows.push_back(std::move(row));
  return WriteTextRows(now);
}

Status SqliteTxn::FlushDeferredText() {
  return deferred_ && !deferred_->rows.empty() ? WriteTextRows(*deferred_) : Status::Ok();
}

Status SqliteTxn::WriteTextRows(TextRows& rows) {
  for (const TextRows::Row& r : rows.rows) {
    switch (r.kind) {
      case TextRows::Row::kRemove: {
        PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("DELETE FROM " + r.table + " WHERE rowid = ?1"));
        PC_RETURN_IF_ERROR(s.Bind(1, r.rowid).Run());
        break;
      }
      case TextRows::Row::kMemory: {
        PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
            "INSERT INTO " + r.table + "(rowid, text, state, entry_version_id) VALUES(?1, ?2, ?3, ?4)"));
        PC_RETURN_IF_ERROR(s.Bind(1, r.rowid).Bind(2, r.text).Bind(3, r.state).Bind(4, r.entry_version_id).Run());
        break;
      }
      case TextRows::Row::kSource: {
        PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT INTO " + r.table + "(rowid, text) VALUES(?1, ?2)"));
        PC_RETURN_IF_ERROR(s.Bind(1, r.rowid).Bind(2, r.text).Run());
        break;
      }
    }
  }
  rows.rows.clear();
  return Status::Ok();
}

std::string MatchExpression(const TextQuery& q, const char* joiner) {
  std::string out;
  for (const std::string& phrase : q.phrases) {
    if (!out.empty()) out += joiner;
    out.push_back('"');
    for (char c : phrase) {
      if (c == '"') out.push_back('"');
      out.push_back(c);
    }
    out.push_back('"');
  }
  return out;
}

// Ranking with bm25() costs ~1.5 µs for every document that contains a query phrase, whatever
// the limit (it counts each phrase's documents for IDF, then scores and sorts them all): a
// sentence of common words over 100,000 entries matched nearly all of them (240 ms). So every
// query is planned first: each phrase's documents are counted, up to a cap.
// - The rarest phrases are kept while the documents they match add up to at most
//   kRankedDocsBudget; only those are ranked, by pc_bm25 (bm25() fed these counts). The rest are
//   common in this memory: they would add little to BM25 (low IDF) and most of the cost — and,
//   measured with MemoryBank distractors, they were noise (docs/quality.md: 500 beat 1,000 in
//   recall and speed; 250 lost recall on MADial-Bench alone).
// - Every phrase is common: the kRecentCandidates newest documents with all of them, then (if
//   that leaves room) with any of them, are ranked by pc_tf_rank (BM25 without IDF, which needs
//   no counting), so the cost is bounded whatever the memory's size. Among documents that all
//   share only common words, the newer ones are preferred.
// Counting is bounded too: the cap falls as phrases grow in number (kPlanCountBudget rows).
constexpr int64_t kCommonPhraseDocs = 500;
constexpr int64_t kRankedDocsBudget = 500;
constexpr int64_t kPlanCountBudget = 8000;
constexpr int64_t kMinCommonCap = 50;

Result<SqliteTxn::TextPlan> SqliteTxn::PlanText(const std::string& table, const TextQuery& query) {
  TextPlan plan;
  const int64_t cap = std::min<int64_t>(
      kCommonPhraseDocs,
      std::max<int64_t>(kMinCommonCap, kPlanCountBudget / static_cast<int64_t>(query.phrases.size())));
  std::vector<std::pair<int64_t, size_t>> counted;  // documents (≤ cap), phrase index
  for (size_t i = 0; i < query.phrases.size(); ++i) {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "SELECT count(*) FROM (SELECT 1 FROM " + table + " WHERE " + table + " MATCH ?1 LIMIT ?2)"));
    s.Bind(1, "text : (" + MatchExpression(TextQuery{{query.phrases[i]}}) + ")").Bind(2, cap + 1);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    int64_t docs = row ? s.Int(0) : 0;
    if (docs == 0) continue;  // matches nothing anywhere: nothing to rank
    if (docs > cap) plan.common.phrases.push_back(query.phrases[i]);
    else counted.emplace_back(docs, i);
  }
  std::stable_sort(counted.begin(), counted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  int64_t docs = 0;
  for (const auto& [n, i] : counted) {
    if (!plan.rare.empty() && docs + n > kRankedDocsBudget) break;  // common here: left out
    plan.rare.phrases.push_back(query.phrases[i]);
    plan.rare_docs += (plan.rare_docs.empty() ? "" : " ") + std::to_string(n);
    docs += n;
  }
  return plan;
}

namespace {

std::string MatchOf(const std::string& phrases, bool include_inactive) {
  std::string match = "text : (" + phrases + ")";
  return include_inactive ? match : "(" + match + ") NOT state : retired";
}

}  // namespace

// Both rank inside FTS5 first (ORDER BY, LIMIT in the inner query) from the index alone — rowid
// and score — and read the stored columns and the version of the top rows only: reading them for
// every matching row cost a lookup each.
Status SqliteTxn::RankText(const std::string& table, const TextPlan& plan, bool include_inactive,
                           int limit, std::vector<TextHit>& out) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      std::string("SELECT t.state = '', ") + kVersionColumns + ", f.r FROM"
      " (SELECT rowid AS id, pc_bm25(" + table + ", ?3) AS r FROM " + table +
      "  WHERE " + table + " MATCH ?1 ORDER BY r LIMIT ?2) f"
      " JOIN " + table + " t ON t.rowid = f.id"
      " JOIN entry_versions v ON v.entry_version_id = t.entry_version_id ORDER BY f.r"));
  s.Bind(1, MatchOf(MatchExpression(plan.rare), include_inactive)).Bind(2, int64_t{limit}).Bind(3, plan.rare_docs);
  return ReadTextHits(s, out);
}

Status SqliteTxn::RankRecentText(const std::string& table, const std::string& phrases,
                                 bool include_inactive, int limit, std::vector<TextHit>& out) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      std::string("SELECT t.state = '', ") + kVersionColumns + ", f.r FROM"
      " (SELECT * FROM (SELECT rowid AS id, pc_tf_rank(" + table + ") AS r FROM " +
      table + " WHERE " + table + " MATCH ?1 ORDER BY rowid DESC LIMIT ?3)"
      "  ORDER BY r LIMIT ?2) f"
      " JOIN " + table + " t ON t.rowid = f.id"
      " JOIN entry_versions v ON v.entry_version_id = t.entry_version_id ORDER BY f.r"));
  s.Bind(1, MatchOf(phrases, include_inactive)).Bind(2, int64_t{limit}).Bind(3, kRecentCandidates);
  std::vector<TextHit> hits;
  PC_RETURN_IF_ERROR(ReadTextHits(s, hits));
  for (TextHit& h : hits) {
    if (static_cast<int>(out.size()) >= limit) break;
    bool seen = false;
    for (const TextHit& o : out) seen = seen || o.item.version.entry_id == h.item.version.entry_id;
    if (!seen) out.push_back(std::move(h));
  }
  return Status::Ok();
}

Status SqliteTxn::ReadTextHits(Stmt& s, std::vector<TextHit>& out) {
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::Ok();
    out.push_back(TextHit{ReadManifestItem(s), -s.Double(1 + kVersionColumnCount)});
  }
}

Result<std::vector<ReadTxn::TextHit>> SqliteTxn::SearchText(const std::string& artifact_id,
                                                           const TextQuery& query,
                                                           bool include_inactive, int limit) {
  std::vector<TextHit> out;
  if (query.empty()) return out;
  PC_RETURN_IF_ERROR(FlushDeferredText());
  PC_ASSIGN_OR_RETURN(std::string table, TextTable(artifact_id));
  PC_ASSIGN_OR_RETURN(TextPlan plan, PlanText(table, query));
  if (!plan.rare.empty()) {
    PC_RETURN_IF_ERROR(RankText(table, plan, include_inactive, limit, out));
  } else if (!plan.common.empty()) {
    PC_RETURN_IF_ERROR(RankRecentText(table, MatchExpression(plan.common, " AND "), include_inactive, limit, out));
    if (static_cast<int>(out.size()) < limit && plan.common.phrases.size() > 1)
      PC_RETURN_IF_ERROR(RankRecentText(table, MatchExpression(plan.common), include_inactive, limit, out));
  }
  return out;
}

}  // namespace pc::sqlite
