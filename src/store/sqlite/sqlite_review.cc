// Review rows of SqliteTxn (RFC 0050, schema.cc migration 9): candidate heads and versions, and
// Experience revisions (the revision row in `revisions` like any artifact's, the content in
// experience_contents).
#include "common/clock.h"
#include "common/ids.h"
#include "store/sqlite/sqlite_txn.h"
#include "store/store_rows.h"

namespace pc::sqlite {
namespace {

constexpr const char* kHeadColumns =
    "h.scope_id, h.candidate_id, h.family, h.version, h.status, h.result, h.decision_reason, "
    "h.created_at,"
    " h.updated_at, v.proposal, v.evidence, v.target, v.reason, v.actor, v.created_at";
constexpr const char* kHeadJoin =
    " FROM candidate_heads h JOIN candidate_versions v ON v.scope_id = h.scope_id"
    " AND v.candidate_id = h.candidate_id AND v.version = h.version";

// The version columns starting at `col`: proposal, evidence, target, reason, actor, created_at.
Result<CandidateVersion> ReadVersion(const Stmt& s, int col, int64_t version) {
  CandidateVersion v;
  v.version = version;
  PC_RETURN_IF_ERROR(ProposalFromRow(s.Text(col), v));
  PC_ASSIGN_OR_RETURN(v.evidence, EvidenceFromRow(s.Text(col + 1)));
  PC_ASSIGN_OR_RETURN(v.target, RefFromRow(s.OptText(col + 2)));
  v.reason = s.OptText(col + 3);
  v.actor = s.Text(col + 4);
  v.created_at_ms = s.Int(col + 5);
  return v;
}

Result<ArtifactCandidate> ReadHead(const Stmt& s) {
  ArtifactCandidate c;
  c.scope_id = s.Text(0);
  c.candidate_id = s.Text(1);
  c.family = s.Text(2);
  std::optional<CandidateStatus> status = CandidateStatusFrom(s.Text(4));
  if (!status)
    return Internal("candidate " + c.candidate_id + " has an unknown status " + s.Text(4));
  c.status = *status;
  PC_ASSIGN_OR_RETURN(c.result, RefFromRow(s.OptText(5)));
  c.decision_reason = s.OptText(6);
  c.created_at_ms = s.Int(7);
  c.updated_at_ms = s.Int(8);
  PC_ASSIGN_OR_RETURN(c.current, ReadVersion(s, 9, s.Int(3)));
  return c;
}

Result<std::vector<ArtifactCandidate>> ReadHeads(Stmt& s) {
  std::vector<ArtifactCandidate> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    PC_ASSIGN_OR_RETURN(ArtifactCandidate c, ReadHead(s));
    out.push_back(std::move(c));
  }
  return out;
}

// Experience rows: artifact_id, revision, family, actor, created_at, four fields, evidence.
constexpr const char* kExperienceSelect =
    "SELECT e.artifact_id, e.revision, a.family, r.actor, r.created_at, e.situation, e.action, "
    "e.outcome,"
    " e.lesson, e.evidence FROM experience_contents e"
    " JOIN revisions r ON r.artifact_id = e.artifact_id AND r.revision = e.revision"
    " JOIN artifacts a ON a.artifact_id = e.artifact_id";

Result<Experience> ReadExperience(const Stmt& s) {
  Experience e;
  e.ref = MemoryRef{s.Text(2), s.Text(0), s.Int(1)};
  e.actor = s.Text(3);
  e.created_at_ms = s.Int(4);
  e.content = ExperienceContent{s.Text(5), s.Text(6), s.Text(7), s.Text(8)};
  PC_ASSIGN_OR_RETURN(e.evidence, EvidenceFromRow(s.Text(9)));
  return e;
}

// Skill rows: artifact_id, revision, family, actor, created_at, four fields, evidence.
constexpr const char* kSkillSelect =
    "SELECT s.artifact_id, s.revision, a.family, r.actor, r.created_at, s.name, s.description,"
    " s.instructions, s.validation, s.evidence FROM skill_contents s"
    " JOIN revisions r ON r.artifact_id = s.artifact_id AND r.revision = s.revision"
    " JOIN artifacts a ON a.artifact_id = s.artifact_id";

}  // namespace

Result<std::optional<ArtifactCandidate>> SqliteTxn::FindCandidate(const std::string& scope_id,
                                                                  const std::string& candidate_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT ") + kHeadColumns + kHeadJoin +
                                          " WHERE h.scope_id = ?1 AND h.candidate_id = ?2"));
  s.Bind(1, scope_id).Bind(2, candidate_id);
  PC_ASSIGN_OR_RETURN(auto found, ReadHeads(s));
  if (found.empty()) return std::optional<ArtifactCandidate>();
  return std::optional<ArtifactCandidate>(std::move(found[0]));
}

Result<std::vector<ArtifactCandidate>> SqliteTxn::ListCandidates(const std::string& scope_id,
                                                                 CandidateStatus status,
                                                                 const std::string& family,
                                                                 const std::string& after,
                                                                 int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db_.Prepare(std::string("SELECT ") + kHeadColumns + kHeadJoin +
                                  " WHERE h.scope_id = ?1 AND h.status = ?2 AND ((?3 = '' AND "
                                  "h.family <> 'memory') OR h.family = ?3) AND h.candidate_id > ?4"
                                  " ORDER BY h.candidate_id LIMIT ?5"));
  s.Bind(1, scope_id)
      .Bind(2, std::string(CandidateStatusName(status)))
      .Bind(3, family)
      .Bind(4, after);
  s.Bind(5, int64_t{limit});
  return ReadHeads(s);
}

Result<std::optional<CandidateVersion>> SqliteTxn::FindCandidateVersion(
    const std::string& scope_id, const std::string& candidate_id, int64_t version) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "SELECT proposal, evidence, target, reason, actor, created_at FROM candidate_versions"
          " WHERE scope_id = ?1 AND candidate_id = ?2 AND version = ?3"));
  s.Bind(1, scope_id).Bind(2, candidate_id).Bind(3, version);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<CandidateVersion>();
  PC_ASSIGN_OR_RETURN(CandidateVersion v, ReadVersion(s, 0, version));
  return std::optional<CandidateVersion>(std::move(v));
}

Result<std::vector<CandidateCount>> SqliteTxn::CountCandidates(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT family, status, count(*) FROM candidate_heads WHERE scope_id = ?1"
                          " GROUP BY family, status ORDER BY family, status"));
  s.Bind(1, scope_id);
  std::vector<CandidateCount> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    std::optional<CandidateStatus> status = CandidateStatusFrom(s.Text(1));
    if (!status) return Internal("a candidate has an unknown status " + s.Text(1));
    out.push_back({s.Text(0), *status, s.Int(2)});
  }
  return out;
}

Result<std::optional<Experience>> SqliteTxn::FindExperience(const std::string& artifact_id,
                                                            int64_t revision) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string(kExperienceSelect) +
                                          " WHERE e.artifact_id = ?1 AND e.revision = ?2"));
  s.Bind(1, artifact_id).Bind(2, revision);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Experience>();
  PC_ASSIGN_OR_RETURN(Experience e, ReadExperience(s));
  return std::optional<Experience>(std::move(e));
}

Result<std::vector<Experience>> SqliteTxn::ListExperienceHeads(const std::string& scope_id,
                                                               int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db_.Prepare(std::string(kExperienceSelect) +
                                  " WHERE a.scope_id = ?1 AND a.family = ?2 AND a.head_revision > "
                                  "0 AND e.revision = a.head_revision"
                                  " ORDER BY a.created_at DESC, a.artifact_id DESC LIMIT ?3"));
  s.Bind(1, scope_id).Bind(2, std::string(kExperienceFamily)).Bind(3, int64_t{limit});
  std::vector<Experience> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    PC_ASSIGN_OR_RETURN(Experience e, ReadExperience(s));
    out.push_back(std::move(e));
  }
  return out;
}

Status SqliteTxn::SaveCandidate(const ArtifactCandidate& c, bool new_version) {
  const CandidateVersion& v = c.current;
  if (new_version) {
    PC_ASSIGN_OR_RETURN(
        Stmt s, db_.Prepare("INSERT INTO candidate_versions(scope_id, candidate_id, version, "
                            "proposal, evidence, target, reason,"
                            " actor, created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
    s.Bind(1, c.scope_id).Bind(2, c.candidate_id).Bind(3, v.version).Bind(4, ProposalRowOf(v));
    s.Bind(5, EvidenceToRow(v.evidence))
        .Bind(6, RefToRow(v.target))
        .Bind(7, v.reason)
        .Bind(8, v.actor);
    PC_RETURN_IF_ERROR(s.Bind(9, v.created_at_ms).Run());
  }
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("INSERT INTO candidate_heads(scope_id, candidate_id, family, version, "
                          "status, result, decision_reason,"
                          " created_at, updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
                          " ON CONFLICT(scope_id, candidate_id) DO UPDATE SET version = "
                          "excluded.version, status = excluded.status,"
                          " result = excluded.result, decision_reason = excluded.decision_reason, "
                          "updated_at = excluded.updated_at"));
  s.Bind(1, c.scope_id).Bind(2, c.candidate_id).Bind(3, c.family).Bind(4, v.version);
  s.Bind(5, std::string(CandidateStatusName(c.status)))
      .Bind(6, RefToRow(c.result))
      .Bind(7, c.decision_reason);
  PC_RETURN_IF_ERROR(s.Bind(8, c.created_at_ms).Bind(9, c.updated_at_ms).Run());
  audit_trail().scope_id = c.scope_id;
  audit_trail().candidates.push_back(c.candidate_id + "@" + std::to_string(v.version) + ":" +
                                     CandidateStatusName(c.status));
  return Status::Ok();
}

Result<std::optional<Skill>> SqliteTxn::FindSkill(const std::string& artifact_id,
                                                  int64_t revision) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string(kSkillSelect) +
                                          " WHERE s.artifact_id = ?1 AND s.revision = ?2"));
  s.Bind(1, artifact_id).Bind(2, revision);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Skill>();
  Skill k;
  k.ref = MemoryRef{s.Text(2), s.Text(0), s.Int(1)};
  k.actor = s.Text(3);
  k.created_at_ms = s.Int(4);
  k.content.name = s.Text(5);
  k.content.description = s.Text(6);
  k.content.instructions = s.Text(7);
  PC_ASSIGN_OR_RETURN(k.content.validation, ValidationFromRow(s.Text(8)));
  PC_ASSIGN_OR_RETURN(k.evidence, EvidenceFromRow(s.Text(9)));
  return std::optional<Skill>(std::move(k));
}

Result<Artifact> SqliteTxn::CreateExperience(const std::string& scope_id) {
  return CreateReviewedArtifact(scope_id, kExperienceFamily, kExperiencePrefix);
}

Result<Artifact> SqliteTxn::CreateSkill(const std::string& scope_id) {
  return CreateReviewedArtifact(scope_id, kSkillFamily, kSkillPrefix);
}

Result<Artifact> SqliteTxn::CreateReviewedArtifact(const std::string& scope_id,
                                                   const std::string& family,
                                                   std::string_view prefix) {
  Artifact a{NewId(prefix), scope_id, family, 0, NowMillis()};
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT INTO artifacts(artifact_id, scope_id, family, "
                                          "is_default, head_revision, created_at)"
                                          " VALUES(?1, ?2, ?3, 0, 0, ?4)"));
  PC_RETURN_IF_ERROR(
      s.Bind(1, a.artifact_id).Bind(2, scope_id).Bind(3, a.family).Bind(4, a.created_at_ms).Run());
  return a;
}

Status SqliteTxn::CommitExperience(const Experience& e, const std::string& reason,
                                   const std::vector<std::string>& lineage) {
  PC_RETURN_IF_ERROR(
      AppendRevision(e.ref.artifact_id, e.ref.revision, e.actor, reason, lineage, e.created_at_ms));
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT INTO experience_contents(artifact_id, revision, "
                                          "situation, action, outcome, lesson, evidence)"
                                          " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  s.Bind(1, e.ref.artifact_id)
      .Bind(2, e.ref.revision)
      .Bind(3, e.content.situation)
      .Bind(4, e.content.action);
  PC_RETURN_IF_ERROR(s.Bind(5, e.content.outcome)
                         .Bind(6, e.content.lesson)
                         .Bind(7, EvidenceToRow(e.evidence))
                         .Run());
  audit_trail().artifact =
      e.ref.family + "/" + e.ref.artifact_id + "@" + std::to_string(e.ref.revision);
  return Status::Ok();
}

Status SqliteTxn::CommitSkill(const Skill& k, const std::string& reason,
                              const std::vector<std::string>& lineage) {
  PC_RETURN_IF_ERROR(
      AppendRevision(k.ref.artifact_id, k.ref.revision, k.actor, reason, lineage, k.created_at_ms));
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT INTO skill_contents(artifact_id, revision, name,"
                                          " description, instructions, validation, evidence)"
                                          " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  s.Bind(1, k.ref.artifact_id)
      .Bind(2, k.ref.revision)
      .Bind(3, k.content.name)
      .Bind(4, k.content.description);
  PC_RETURN_IF_ERROR(s.Bind(5, k.content.instructions)
                         .Bind(6, ValidationToRow(k.content.validation))
                         .Bind(7, EvidenceToRow(k.evidence))
                         .Run());
  audit_trail().artifact =
      k.ref.family + "/" + k.ref.artifact_id + "@" + std::to_string(k.ref.revision);
  return Status::Ok();
}

}  // namespace pc::sqlite

namespace pc::sqlite {

Result<std::map<std::string, std::string>> SqliteTxn::ListScopeSettings(
    const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db_.Prepare("SELECT name, value FROM scope_settings WHERE scope_id = ?1"));
  s.Bind(1, scope_id);
  std::map<std::string, std::string> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out[s.Text(0)] = s.Text(1);
  }
  return out;
}

Status SqliteTxn::PutScopeSetting(const std::string& scope_id, const std::string& name,
                                  const std::optional<std::string>& value) {
  if (!value) {
    PC_ASSIGN_OR_RETURN(
        Stmt s, db_.Prepare("DELETE FROM scope_settings WHERE scope_id = ?1 AND name = ?2"));
    PC_RETURN_IF_ERROR(s.Bind(1, scope_id).Bind(2, name).Run());
  } else {
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db_.Prepare(
            "INSERT INTO scope_settings(scope_id, name, value, updated_at) VALUES(?1, ?2, ?3, ?4)"
            " ON CONFLICT(scope_id, name) DO UPDATE SET value = excluded.value, updated_at = "
            "excluded.updated_at"));
    PC_RETURN_IF_ERROR(
        s.Bind(1, scope_id).Bind(2, name).Bind(3, *value).Bind(4, NowMillis()).Run());
  }
  audit_trail().scope_id = scope_id;
  audit_trail().settings.push_back(name + "=" + value.value_or("(default)"));
  return Status::Ok();
}

}  // namespace pc::sqlite
