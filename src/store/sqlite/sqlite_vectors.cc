// The vector projection of SqliteTxn: rows in entry_vectors, written with each revision and by
// reindexing; a missing-vector count per artifact makes the completeness check O(1).
#include <cstring>

#include "common/clock.h"
#include "store/sqlite/sqlite_txn.h"

namespace pc::sqlite {
namespace {

struct ArtifactVectors {
  std::string profile;
  int64_t missing = 0;
};

Result<ArtifactVectors> LoadArtifactVectors(Db& db, const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db.Prepare("SELECT coalesce(vector_profile, ''), vector_missing FROM "
                                         "artifacts WHERE artifact_id = ?1"));
  s.Bind(1, artifact_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound("no artifact " + artifact_id);
  return ArtifactVectors{s.Text(0), s.Int(1)};
}

// The entry_vectors row of the entry that version ?2 belongs to (primary-key probes only).
const std::string kRowOfVersion =
    "(SELECT e.rowid FROM entries e JOIN entry_versions v ON v.entry_id = e.entry_id"
    " WHERE v.entry_version_id = ?2)";

Status AddMissing(Db& db, const std::string& artifact_id, int64_t delta) {
  if (delta == 0) return Status::Ok();
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db.Prepare(
          "UPDATE artifacts SET vector_missing = vector_missing + ?2 WHERE artifact_id = ?1"));
  return s.Bind(1, artifact_id).Bind(2, delta).Run();
}

}  // namespace

Status SqliteTxn::ProjectVectors(const NewRevision& rev) {
  const std::string& artifact = rev.info.memory.artifact_id;
  PC_ASSIGN_OR_RETURN(ArtifactVectors state, LoadArtifactVectors(db_, artifact));
  // A memory with nothing missing adopts the profile of the vectors it is given (the first
  // commit, or the first after a provider was configured for an empty memory).
  if (state.profile.empty() && state.missing == 0 && !rev.vector_profile.empty()) {
    PC_ASSIGN_OR_RETURN(
        Stmt s, db_.Prepare("UPDATE artifacts SET vector_profile = ?2 WHERE artifact_id = ?1"));
    PC_RETURN_IF_ERROR(s.Bind(1, artifact).Bind(2, rev.vector_profile).Run());
    state.profile = rev.vector_profile;
  }
  int64_t delta = 0;
  for (const ManifestUpdate& u : rev.manifest) {
    PC_ASSIGN_OR_RETURN(int64_t d, ProjectVector(artifact, state.profile, u, rev));
    delta += d;
  }
  return AddMissing(db_, artifact, delta);
}

Result<int64_t> SqliteTxn::ProjectVector(const std::string& artifact_id,
                                         const std::string& artifact_profile,
                                         const ManifestUpdate& u, const NewRevision& rev) {
  auto missing = [&](bool active, bool has_vector, const std::string& profile) {
    return active && (!has_vector || profile != artifact_profile) ? 1 : 0;
  };
  int64_t old_missing = 0;
  std::string old_version;
  {
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db_.Prepare("SELECT active, vector IS NOT NULL, coalesce(profile, ''), entry_version_id"
                    " FROM entry_vectors WHERE entry_rowid = (SELECT rowid FROM entries WHERE "
                    "entry_id = ?1)"));
    s.Bind(1, u.entry_id);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) {
      old_missing = missing(s.Int(0) != 0, s.Int(1) != 0, s.Text(2));
      old_version = s.Text(3);
      if (old_version == u.entry_version_id) {  // retire: same version, only the flag changes
        int64_t now_missing = missing(u.active, s.Int(1) != 0, s.Text(2));
        PC_ASSIGN_OR_RETURN(
            Stmt up,
            db_.Prepare("UPDATE entry_vectors SET active = ?2"
                        " WHERE entry_rowid = (SELECT rowid FROM entries WHERE entry_id = ?1)"));
        PC_RETURN_IF_ERROR(up.Bind(1, u.entry_id).Bind(2, int64_t{u.active ? 1 : 0}).Run());
        return now_missing - old_missing;
      }
    }
  }
  auto vec = rev.vectors.find(u.entry_version_id);
  bool has = vec != rev.vectors.end();
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT OR REPLACE INTO entry_vectors(entry_rowid, "
                                          "artifact_id, entry_id, entry_version_id,"
                                          " active, profile, vector) SELECT rowid, ?2, ?1, ?3, ?4, "
                                          "?5, ?6 FROM entries WHERE entry_id = ?1"));
  s.Bind(1, u.entry_id).Bind(2, artifact_id).Bind(3, u.entry_version_id);
  s.Bind(4, int64_t{u.active ? 1 : 0});
  if (has) {
    s.Bind(5, rev.vector_profile);
    s.BindBlob(6, vec->second.data(), vec->second.size() * sizeof(float));
  } else {
    s.BindNull(5).BindNull(6);
  }
  PC_RETURN_IF_ERROR(s.Run());
  return missing(u.active, has, has ? rev.vector_profile : std::string()) - old_missing;
}

Result<ReadTxn::VectorState> SqliteTxn::GetVectorState(const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(ArtifactVectors a, LoadArtifactVectors(db_, artifact_id));
  return VectorState{a.profile, a.missing};
}

Status SqliteTxn::ScanVectors(const std::string& artifact_id, const std::string& profile,
                              bool include_inactive, const VectorVisitor& visit) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT entry_id, entry_version_id, active, vector FROM entry_vectors"
                          " WHERE artifact_id = ?1 AND profile = ?2 AND vector IS NOT NULL AND (?3 "
                          "OR active = 1)"));
  s.Bind(1, artifact_id).Bind(2, profile).Bind(3, int64_t{include_inactive ? 1 : 0});
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    auto [data, bytes] = s.Blob(3);
    visit(s.Text(0), s.Text(1), s.Int(2) != 0, static_cast<const float*>(data),
          bytes / sizeof(float));
  }
  return Status::Ok();
}

Status SqliteTxn::VisitVectorRows(const std::string& profile,
                                  const std::vector<std::string>& entry_ids,
                                  const VectorVisitor& visit) {
  for (const std::string& entry_id : entry_ids) {
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db_.Prepare("SELECT entry_version_id, active, profile IS ?2 AND vector IS NOT NULL, vector"
                    " FROM entry_vectors WHERE entry_rowid = (SELECT rowid FROM entries WHERE "
                    "entry_id = ?1)"));
    s.Bind(1, entry_id).Bind(2, profile);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row || s.Int(2) == 0) {
      visit(entry_id, row ? s.Text(0) : std::string(), row && s.Int(1) != 0, nullptr, 0);
      continue;
    }
    auto [data, bytes] = s.Blob(3);
    visit(entry_id, s.Text(0), s.Int(1) != 0, static_cast<const float*>(data),
          bytes / sizeof(float));
  }
  return Status::Ok();
}

Result<std::vector<std::string>> SqliteTxn::ChangedEntries(const std::string& artifact_id,
                                                           int64_t after, int64_t upto,
                                                           int64_t limit) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT DISTINCT entry_id FROM revision_changes"
                          " WHERE artifact_id = ?1 AND revision > ?2 AND revision <= ?3 LIMIT ?4"));
  s.Bind(1, artifact_id).Bind(2, after).Bind(3, upto).Bind(4, limit);
  std::vector<std::string> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(s.Text(0));
  }
  return out;
}

Status SqliteTxn::SetVectorProfile(const std::string& artifact_id, const std::string& profile) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare("UPDATE artifacts SET vector_profile = ?2, vector_missing ="
                  " (SELECT count(*) FROM entry_vectors v WHERE v.artifact_id = ?1 AND v.active = 1"
                  "  AND (v.vector IS NULL OR v.profile IS NOT ?2))"
                  " WHERE artifact_id = ?1"));
  return s.Bind(1, artifact_id).Bind(2, profile).Run();
}

Result<std::vector<EntryVersion>> SqliteTxn::VectorBacklog(const std::string& artifact_id,
                                                           const std::string& after_entry_id,
                                                           int limit) {
  PC_ASSIGN_OR_RETURN(ArtifactVectors a, LoadArtifactVectors(db_, artifact_id));
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "SELECT entry_version_id FROM entry_vectors WHERE artifact_id = ?1 AND entry_id > ?2"
          " AND (vector IS NULL OR profile IS NOT ?3) ORDER BY entry_id LIMIT ?4"));
  s.Bind(1, artifact_id).Bind(2, after_entry_id).Bind(3, a.profile).Bind(4, int64_t{limit});
  std::vector<std::string> ids;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    ids.push_back(s.Text(0));
  }
  std::vector<EntryVersion> out;
  for (const std::string& id : ids) {
    PC_ASSIGN_OR_RETURN(std::optional<EntryVersion> v, FindEntryVersion(id));
    if (v) out.push_back(std::move(*v));
  }
  return out;
}

Status SqliteTxn::PutVectors(const std::string& artifact_id, const std::string& profile,
                             const std::unordered_map<std::string, std::vector<float>>& vectors) {
  PC_ASSIGN_OR_RETURN(ArtifactVectors a, LoadArtifactVectors(db_, artifact_id));
  int64_t delta = 0;
  for (const auto& [version_id, vec] : vectors) {
    // Only the head row of that exact version: a version revised meanwhile is not resurrected.
    PC_ASSIGN_OR_RETURN(
        Stmt q,
        db_.Prepare("SELECT active, vector IS NOT NULL, coalesce(profile, '') FROM entry_vectors"
                    " WHERE entry_rowid = " +
                    kRowOfVersion + " AND artifact_id = ?1 AND entry_version_id = ?2"));
    q.Bind(1, artifact_id).Bind(2, version_id);
    PC_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) continue;
    bool active = q.Int(0) != 0;
    int64_t was = active && (q.Int(1) == 0 || q.Text(2) != a.profile) ? 1 : 0;
    int64_t now = active && profile != a.profile ? 1 : 0;
    PC_ASSIGN_OR_RETURN(
        Stmt up, db_.Prepare("UPDATE entry_vectors SET profile = ?3, vector = ?4"
                             " WHERE entry_rowid = " +
                             kRowOfVersion + " AND artifact_id = ?1 AND entry_version_id = ?2"));
    up.Bind(1, artifact_id).Bind(2, version_id).Bind(3, profile);
    PC_RETURN_IF_ERROR(up.BindBlob(4, vec.data(), vec.size() * sizeof(float)).Run());
    delta += now - was;
  }
  return AddMissing(db_, artifact_id, delta);
}

}  // namespace pc::sqlite
