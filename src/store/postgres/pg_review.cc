// Review rows of PgTxn (RFC 0050, pg_schema.cc migration 4): candidate heads and versions, and
// Experience revisions, as in the SQLite store (sqlite_review.cc).
#include "common/clock.h"
#include "common/ids.h"
#include "store/postgres/pg_txn.h"
#include "store/store_rows.h"

namespace pc::pg {
namespace {

constexpr const char* kHeadColumns =
    "h.scope_id, h.candidate_id, h.family, h.version, h.status, h.result, h.decision_reason, "
    "h.created_at,"
    " h.updated_at, v.proposal, v.evidence, v.target, v.reason, v.actor, v.created_at";
constexpr const char* kHeadJoin =
    " FROM candidate_heads h JOIN candidate_versions v ON v.scope_id = h.scope_id"
    " AND v.candidate_id = h.candidate_id AND v.version = h.version";

Result<CandidateVersion> ReadVersion(const Rows& r, int i, int col, int64_t version) {
  CandidateVersion v;
  v.version = version;
  PC_RETURN_IF_ERROR(ProposalFromRow(r.Text(i, col), v));
  PC_ASSIGN_OR_RETURN(v.evidence, EvidenceFromRow(r.Text(i, col + 1)));
  PC_ASSIGN_OR_RETURN(v.target, RefFromRow(r.Get(i, col + 2)));
  v.reason = r.Get(i, col + 3);
  v.actor = r.Text(i, col + 4);
  v.created_at_ms = r.Int(i, col + 5);
  return v;
}

Result<std::vector<ArtifactCandidate>> ReadHeads(const Rows& r) {
  std::vector<ArtifactCandidate> out;
  for (int i = 0; i < r.size(); ++i) {
    ArtifactCandidate c;
    c.scope_id = r.Text(i, 0);
    c.candidate_id = r.Text(i, 1);
    c.family = r.Text(i, 2);
    std::optional<CandidateStatus> status = CandidateStatusFrom(r.Text(i, 4));
    if (!status)
      return Internal("candidate " + c.candidate_id + " has an unknown status " + r.Text(i, 4));
    c.status = *status;
    PC_ASSIGN_OR_RETURN(c.result, RefFromRow(r.Get(i, 5)));
    c.decision_reason = r.Get(i, 6);
    c.created_at_ms = r.Int(i, 7);
    c.updated_at_ms = r.Int(i, 8);
    PC_ASSIGN_OR_RETURN(c.current, ReadVersion(r, i, 9, r.Int(i, 3)));
    out.push_back(std::move(c));
  }
  return out;
}

constexpr const char* kExperienceSelect =
    "SELECT e.artifact_id, e.revision, a.family, r.actor, r.created_at, e.situation, e.action, "
    "e.outcome,"
    " e.lesson, e.evidence FROM experience_contents e"
    " JOIN revisions r ON r.artifact_id = e.artifact_id AND r.revision = e.revision"
    " JOIN artifacts a ON a.artifact_id = e.artifact_id";

Result<std::vector<Experience>> ReadExperiences(const Rows& r) {
  std::vector<Experience> out;
  for (int i = 0; i < r.size(); ++i) {
    Experience e;
    e.ref = MemoryRef{r.Text(i, 2), r.Text(i, 0), r.Int(i, 1)};
    e.actor = r.Text(i, 3);
    e.created_at_ms = r.Int(i, 4);
    e.content = ExperienceContent{r.Text(i, 5), r.Text(i, 6), r.Text(i, 7), r.Text(i, 8)};
    PC_ASSIGN_OR_RETURN(e.evidence, EvidenceFromRow(r.Text(i, 9)));
    out.push_back(std::move(e));
  }
  return out;
}

constexpr const char* kSkillSelect =
    "SELECT s.artifact_id, s.revision, a.family, r.actor, r.created_at, s.name, s.description,"
    " s.instructions, s.validation, s.evidence FROM skill_contents s"
    " JOIN revisions r ON r.artifact_id = s.artifact_id AND r.revision = s.revision"
    " JOIN artifacts a ON a.artifact_id = s.artifact_id";

}  // namespace

Result<std::optional<ArtifactCandidate>> PgTxn::FindCandidate(const std::string& scope_id,
                                                              const std::string& candidate_id) {
  // A write locks the head alone, then reads it with its version (a locked join's recheck under
  // READ COMMITTED would see the old version row; the scope row every write locks first already
  // orders them, this keeps it true without that). Two reviewers of one candidate take turns.
  if (Lock()[0])
    PC_RETURN_IF_ERROR(
        Q(std::string("SELECT 1 FROM candidate_heads WHERE scope_id = $1 AND candidate_id = $2") +
              Lock(),
          {scope_id, candidate_id})
            .status());
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT ") + kHeadColumns + kHeadJoin +
                                    " WHERE h.scope_id = $1 AND h.candidate_id = $2",
                                {scope_id, candidate_id}));
  PC_ASSIGN_OR_RETURN(auto found, ReadHeads(r));
  if (found.empty()) return std::optional<ArtifactCandidate>();
  return std::optional<ArtifactCandidate>(std::move(found[0]));
}

Result<std::vector<ArtifactCandidate>> PgTxn::ListCandidates(const std::string& scope_id,
                                                             CandidateStatus status,
                                                             const std::string& family,
                                                             const std::string& after, int limit) {
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q(std::string("SELECT ") + kHeadColumns + kHeadJoin +
                            " WHERE h.scope_id = $1 AND h.status = $2 AND (($3 = '' AND h.family "
                            "<> 'memory') OR h.family = $3)"
                            " AND h.candidate_id COLLATE \"C\" > $4 ORDER BY h.candidate_id "
                            "COLLATE \"C\" LIMIT $5::bigint",
                        {scope_id, CandidateStatusName(status), family, after, P(int64_t{limit})}));
  return ReadHeads(r);
}

Result<std::optional<CandidateVersion>> PgTxn::FindCandidateVersion(const std::string& scope_id,
                                                                    const std::string& candidate_id,
                                                                    int64_t version) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q("SELECT proposal, evidence, target, reason, actor, created_at FROM candidate_versions"
        " WHERE scope_id = $1 AND candidate_id = $2 AND version = $3::bigint",
        {scope_id, candidate_id, P(version)}));
  if (r.size() == 0) return std::optional<CandidateVersion>();
  PC_ASSIGN_OR_RETURN(CandidateVersion v, ReadVersion(r, 0, 0, version));
  return std::optional<CandidateVersion>(std::move(v));
}

Result<std::vector<CandidateCount>> PgTxn::CountCandidates(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q("SELECT family, status, count(*) FROM candidate_heads WHERE scope_id = $1"
                " GROUP BY family, status ORDER BY family COLLATE \"C\", status COLLATE \"C\"",
                {scope_id}));
  std::vector<CandidateCount> out;
  for (int i = 0; i < r.size(); ++i) {
    std::optional<CandidateStatus> status = CandidateStatusFrom(r.Text(i, 1));
    if (!status) return Internal("a candidate has an unknown status " + r.Text(i, 1));
    out.push_back({r.Text(i, 0), *status, r.Int(i, 2)});
  }
  return out;
}

Result<std::optional<Experience>> PgTxn::FindExperience(const std::string& artifact_id,
                                                        int64_t revision) {
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string(kExperienceSelect) +
                                    " WHERE e.artifact_id = $1 AND e.revision = $2::bigint",
                                {artifact_id, P(revision)}));
  PC_ASSIGN_OR_RETURN(auto found, ReadExperiences(r));
  if (found.empty()) return std::optional<Experience>();
  return std::optional<Experience>(std::move(found[0]));
}

Result<std::vector<Experience>> PgTxn::ListExperienceHeads(const std::string& scope_id, int limit) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q(std::string(kExperienceSelect) +
            " WHERE a.scope_id = $1 AND a.family = $2 AND a.head_revision > 0"
            " AND e.revision = a.head_revision"
            " ORDER BY a.created_at DESC, a.artifact_id COLLATE \"C\" DESC LIMIT $3::bigint",
        {scope_id, kExperienceFamily, P(int64_t{limit})}));
  return ReadExperiences(r);
}

Status PgTxn::SaveCandidate(const ArtifactCandidate& c, bool new_version) {
  const CandidateVersion& v = c.current;
  if (new_version)
    PC_RETURN_IF_ERROR(
        Q("INSERT INTO candidate_versions(scope_id, candidate_id, version, proposal, evidence, "
          "target,"
          " reason, actor, created_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9)",
          {c.scope_id, c.candidate_id, P(v.version), ProposalRowOf(v), EvidenceToRow(v.evidence),
           RefToRow(v.target), v.reason, v.actor, P(v.created_at_ms)})
            .status());
  PC_RETURN_IF_ERROR(
      Q("INSERT INTO candidate_heads(scope_id, candidate_id, family, version, status, result,"
        " decision_reason, created_at, updated_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        " ON CONFLICT(scope_id, candidate_id) DO UPDATE SET version = excluded.version,"
        " status = excluded.status, result = excluded.result,"
        " decision_reason = excluded.decision_reason, updated_at = excluded.updated_at",
        {c.scope_id, c.candidate_id, c.family, P(v.version), CandidateStatusName(c.status),
         RefToRow(c.result), c.decision_reason, P(c.created_at_ms), P(c.updated_at_ms)})
          .status());
  audit_trail().scope_id = c.scope_id;
  audit_trail().candidates.push_back(c.candidate_id + "@" + std::to_string(v.version) + ":" +
                                     CandidateStatusName(c.status));
  return Status::Ok();
}

Result<std::optional<Skill>> PgTxn::FindSkill(const std::string& artifact_id, int64_t revision) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q(std::string(kSkillSelect) + " WHERE s.artifact_id = $1 AND s.revision = $2::bigint",
                {artifact_id, P(revision)}));
  if (r.size() == 0) return std::optional<Skill>();
  Skill k;
  k.ref = MemoryRef{r.Text(0, 2), r.Text(0, 0), r.Int(0, 1)};
  k.actor = r.Text(0, 3);
  k.created_at_ms = r.Int(0, 4);
  k.content.name = r.Text(0, 5);
  k.content.description = r.Text(0, 6);
  k.content.instructions = r.Text(0, 7);
  PC_ASSIGN_OR_RETURN(k.content.validation, ValidationFromRow(r.Text(0, 8)));
  PC_ASSIGN_OR_RETURN(k.evidence, EvidenceFromRow(r.Text(0, 9)));
  return std::optional<Skill>(std::move(k));
}

Result<Artifact> PgTxn::CreateExperience(const std::string& scope_id) {
  return CreateReviewedArtifact(scope_id, kExperienceFamily, kExperiencePrefix);
}

Result<Artifact> PgTxn::CreateSkill(const std::string& scope_id) {
  return CreateReviewedArtifact(scope_id, kSkillFamily, kSkillPrefix);
}

Result<Artifact> PgTxn::CreateReviewedArtifact(const std::string& scope_id,
                                               const std::string& family, std::string_view prefix) {
  Artifact a{NewId(prefix), scope_id, family, 0, NowMillis()};
  PC_RETURN_IF_ERROR(
      Q("INSERT INTO artifacts(artifact_id, scope_id, family, is_default, head_revision,"
        " created_at) VALUES($1, $2, $3, false, 0, $4)",
        {a.artifact_id, scope_id, a.family, P(a.created_at_ms)})
          .status());
  return a;
}

Status PgTxn::CommitExperience(const Experience& e, const std::string& reason,
                               const std::vector<std::string>& lineage) {
  PC_RETURN_IF_ERROR(
      AppendRevision(e.ref.artifact_id, e.ref.revision, e.actor, reason, lineage, e.created_at_ms));
  PC_RETURN_IF_ERROR(
      Q("INSERT INTO experience_contents(artifact_id, revision, situation, action, outcome, lesson,"
        " evidence) VALUES($1, $2, $3, $4, $5, $6, $7)",
        {e.ref.artifact_id, P(e.ref.revision), e.content.situation, e.content.action,
         e.content.outcome, e.content.lesson, EvidenceToRow(e.evidence)})
          .status());
  audit_trail().artifact =
      e.ref.family + "/" + e.ref.artifact_id + "@" + std::to_string(e.ref.revision);
  return Status::Ok();
}

Status PgTxn::CommitSkill(const Skill& k, const std::string& reason,
                          const std::vector<std::string>& lineage) {
  PC_RETURN_IF_ERROR(
      AppendRevision(k.ref.artifact_id, k.ref.revision, k.actor, reason, lineage, k.created_at_ms));
  PC_RETURN_IF_ERROR(
      Q("INSERT INTO skill_contents(artifact_id, revision, name, description, instructions,"
        " validation, evidence) VALUES($1, $2, $3, $4, $5, $6, $7)",
        {k.ref.artifact_id, P(k.ref.revision), k.content.name, k.content.description,
         k.content.instructions, ValidationToRow(k.content.validation), EvidenceToRow(k.evidence)})
          .status());
  audit_trail().artifact =
      k.ref.family + "/" + k.ref.artifact_id + "@" + std::to_string(k.ref.revision);
  return Status::Ok();
}

}  // namespace pc::pg

namespace pc::pg {

Result<std::map<std::string, std::string>> PgTxn::ListScopeSettings(const std::string& scope_id) {
  if (settings_ && settings_->scope_id == scope_id)
    return settings_->settings;  // read with the scope
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q("SELECT name, value FROM scope_settings WHERE scope_id = $1", {scope_id}));
  std::map<std::string, std::string> out;
  for (int i = 0; i < r.size(); ++i) out[r.Text(i, 0)] = r.Text(i, 1);
  return out;
}

Status PgTxn::PutScopeSetting(const std::string& scope_id, const std::string& name,
                              const std::optional<std::string>& value) {
  settings_.reset();
  if (!value)
    PC_RETURN_IF_ERROR(
        Q("DELETE FROM scope_settings WHERE scope_id = $1 AND name = $2", {scope_id, name})
            .status());
  else
    PC_RETURN_IF_ERROR(
        Q("INSERT INTO scope_settings(scope_id, name, value, updated_at) VALUES($1, $2, $3, $4)"
          " ON CONFLICT(scope_id, name) DO UPDATE SET value = excluded.value,"
          " updated_at = excluded.updated_at",
          {scope_id, name, *value, P(NowMillis())})
            .status());
  audit_trail().scope_id = scope_id;
  audit_trail().settings.push_back(name + "=" + value.value_or("(default)"));
  return Status::Ok();
}

}  // namespace pc::pg
