#include "store/sqlite/sqlite_txn.h"

#include <algorithm>

#include "common/clock.h"
#include "common/ids.h"
#include "store/sqlite/rows.h"

namespace pc::sqlite {
namespace {

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
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "SELECT s.scope_id, s.key, s.created_at, a.artifact_id, a.head_revision, a.created_at"
          " FROM scopes s"
          " JOIN artifacts a ON a.scope_id = s.scope_id AND a.family = 'memory' AND a.is_default = "
          "1"
          " WHERE s." +
          column + " = ?1"));
  s.Bind(1, value);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Scope>();
  return std::optional<Scope>(Scope{s.Text(0), s.Text(1), s.Int(2), s.Text(3), s.Int(4), s.Int(5)});
}

Result<std::optional<Scope>> SqliteTxn::FindScope(const std::string& scope_id) {
  return FindScopeWhere("scope_id", scope_id);
}

Result<std::optional<Scope>> SqliteTxn::FindScopeByKey(const std::string& key) {
  return FindScopeWhere("key", key);
}

Result<std::vector<Scope>> SqliteTxn::ListScopes(const std::string& after, int limit) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "SELECT s.scope_id, s.key, s.created_at, a.artifact_id, a.head_revision, a.created_at"
          " FROM scopes s"
          " JOIN artifacts a ON a.scope_id = s.scope_id AND a.family = 'memory' AND a.is_default = "
          "1"
          " WHERE s.scope_id > ?1 ORDER BY s.scope_id LIMIT ?2"));
  s.Bind(1, after).Bind(2, int64_t{limit});
  std::vector<Scope> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(Scope{s.Text(0), s.Text(1), s.Int(2), s.Text(3), s.Int(4), s.Int(5)});
  }
  return out;
}

Result<std::optional<Artifact>> SqliteTxn::FindArtifact(const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare("SELECT artifact_id, scope_id, family, head_revision, created_at FROM artifacts"
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
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          std::string("SELECT m.active, ") + kVersionColumns +
          // CROSS JOIN fixes the order: find the (few) versions with this hash first, then their
          // head line; the other order scans the whole manifest.
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
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare("SELECT op, entry_id, from_version_id, to_version_id FROM revision_changes"
                  " WHERE artifact_id = ?1 AND revision = ?2 ORDER BY seq"));
  s.Bind(1, info.memory.artifact_id).Bind(2, info.memory.revision);
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    std::optional<ChangeOp> op = ParseChangeOp(s.Text(0));
    // A change the store cannot name is corruption: an error, never read as an add.
    if (!op)
      return Internal("revision " + std::to_string(info.memory.revision) +
                      " names an unknown change: " + s.Text(0));
    info.changes.push_back(Change{*op, s.Text(1), s.OptText(2), s.Text(3)});
  }
  return Status::Ok();
}

Result<std::vector<RevisionInfo>> SqliteTxn::ListRevisions(const std::string& artifact_id,
                                                           int64_t before, int limit) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT r.revision, r.actor, r.reason, r.lineage, r.created_at, a.family"
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

Result<std::vector<ReadTxn::ExpiredItem>> SqliteTxn::ListExpired(int64_t after_ms, int64_t until_ms,
                                                                 int limit) {
  // The partial index entry_versions_valid_until gives the range; each version's head line is one
  // seek of manifest_head.
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT m.artifact_id, v.entry_id, v.entry_version_id, v.valid_until"
                          " FROM entry_versions v"
                          " JOIN entries e ON e.entry_id = v.entry_id"
                          " JOIN manifest m ON m.artifact_id = e.artifact_id"
                          " AND m.entry_id = v.entry_id AND m.to_revision IS NULL"
                          " WHERE v.valid_until > ?1 AND v.valid_until <= ?2"
                          " AND m.entry_version_id = v.entry_version_id AND m.active"
                          " ORDER BY v.valid_until LIMIT ?3"));
  s.Bind(1, after_ms).Bind(2, until_ms).Bind(3, int64_t{limit});
  std::vector<ExpiredItem> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back(ExpiredItem{s.Text(0), s.Text(1), s.Text(2), s.Int(3)});
  }
}

Result<Scope> SqliteTxn::CreateScope(const std::string& key) {
  const int64_t now = NowMillis();
  Scope scope{NewId(kScopePrefix), key, now, NewId(kMemoryPrefix), 0, now};
  {
    PC_ASSIGN_OR_RETURN(
        Stmt s, db_.Prepare("INSERT INTO scopes(scope_id, key, created_at) VALUES(?1, ?2, ?3)"));
    PC_RETURN_IF_ERROR(s.Bind(1, scope.scope_id).Bind(2, key).Bind(3, scope.created_at_ms).Run());
  }
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT INTO artifacts(artifact_id, scope_id, family, "
                                          "is_default, head_revision, created_at)"
                                          " VALUES(?1, ?2, ?3, 1, 0, ?4)"));
  s.Bind(1, scope.memory_artifact_id).Bind(2, scope.scope_id).Bind(3, std::string(kMemoryFamily));
  PC_RETURN_IF_ERROR(s.Bind(4, scope.created_at_ms).Run());
  audit_trail().created_scope = true;
  if (audit_trail().scope_id.empty()) audit_trail().scope_id = scope.scope_id;
  return scope;  // no table of its own: full text is one shared table (sqlite_text.cc)
}

Status SqliteTxn::AppendRevision(const std::string& artifact, int64_t r, const std::string& actor,
                                 const std::string& reason, const std::vector<std::string>& lineage,
                                 int64_t created_at_ms) {
  {
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db_.Prepare(
            "UPDATE artifacts SET head_revision = ?2 WHERE artifact_id = ?1 AND head_revision = ?3"
            " RETURNING head_revision"));
    s.Bind(1, artifact).Bind(2, r).Bind(3, r - 1);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row)
      return Conflict("the head of " + artifact + " moved; revision " + std::to_string(r) +
                      " is taken");
  }
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare("INSERT INTO revisions(artifact_id, revision, actor, reason, lineage, created_at)"
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
      PC_ASSIGN_OR_RETURN(
          Stmt s,
          db_.Prepare(
              "INSERT INTO entries(entry_id, artifact_id, created_revision) VALUES(?1, ?2, ?3)"));
      PC_RETURN_IF_ERROR(s.Bind(1, v.entry_id).Bind(2, artifact).Bind(3, r).Run());
    }
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db_.Prepare("INSERT INTO entry_versions(entry_version_id, entry_id, version, "
                    "previous_version_id, kind,"
                    " text, content_hash, source_refs, created_by_revision, reason, created_at,"
                    " valid_until) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"));
    s.Bind(1, v.entry_version_id).Bind(2, v.entry_id).Bind(3, v.version);
    s.Bind(4, v.previous_version_id).Bind(5, v.kind).Bind(6, v.text).Bind(7, v.content_hash);
    s.Bind(8, JoinLines(v.source_refs)).Bind(9, r).Bind(10, v.reason).Bind(11, v.created_at_ms);
    if (v.valid_until_ms)
      s.Bind(12, *v.valid_until_ms);
    else
      s.BindNull(12);
    PC_RETURN_IF_ERROR(s.Run());
  }
  PC_ASSIGN_OR_RETURN(const int64_t text_owner, RowidOf("artifacts", "artifact_id", artifact));
  int64_t seq = 0;
  for (const Change& c : rev.info.changes) {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT INTO revision_changes(artifact_id, revision, "
                                            "seq, op, entry_id, from_version_id,"
                                            " to_version_id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    s.Bind(1, artifact).Bind(2, r).Bind(3, ++seq).Bind(4, std::string(ChangeOpName(c.op)));
    PC_RETURN_IF_ERROR(
        s.Bind(5, c.entry_id).Bind(6, c.from_version_id).Bind(7, c.to_version_id).Run());
  }
  for (const ManifestUpdate& u : rev.manifest) {
    {
      PC_ASSIGN_OR_RETURN(
          Stmt s, db_.Prepare("UPDATE manifest SET to_revision = ?3"
                              " WHERE artifact_id = ?1 AND entry_id = ?2 AND to_revision IS NULL"));
      PC_RETURN_IF_ERROR(s.Bind(1, artifact).Bind(2, u.entry_id).Bind(3, r).Run());
    }
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db_.Prepare(
            "INSERT INTO manifest(artifact_id, entry_id, entry_version_id, active, from_revision,"
            " to_revision) VALUES(?1, ?2, ?3, ?4, ?5, NULL)"));
    s.Bind(1, artifact).Bind(2, u.entry_id).Bind(3, u.entry_version_id);
    PC_RETURN_IF_ERROR(s.Bind(4, int64_t{u.active ? 1 : 0}).Bind(5, r).Run());
    PC_RETURN_IF_ERROR(ProjectText(text_owner, r, u));
  }
  AuditTrail& trail = audit_trail();
  if (trail.artifact_id.empty()) trail.artifact_id = artifact;
  trail.revision = r;
  for (const Change& c : rev.info.changes) trail.AddEntry(c.entry_id);
  PC_RETURN_IF_ERROR(PutGraphEdges(rev));
  return ProjectVectors(rev);
}

}  // namespace pc::sqlite
