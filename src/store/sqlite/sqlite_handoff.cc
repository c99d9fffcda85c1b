// Handoff revisions of SqliteTxn: one row per revision in handoff_versions, its lists in
// handoff_items, and the revision itself in `revisions` like any artifact's.
#include "common/clock.h"
#include "common/ids.h"
#include "store/sqlite/sqlite_txn.h"

namespace pc::sqlite {
namespace {

constexpr const char* kLists[] = {"decisions", "next_steps", "open_questions"};

std::vector<std::string>& ListOf(Handoff& h, int i) {
  return i == 0 ? h.decisions : i == 1 ? h.next_steps : h.open_questions;
}

}  // namespace

Result<std::optional<Artifact>> SqliteTxn::FindDefaultArtifact(const std::string& scope_id,
                                                               const std::string& family) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT artifact_id, scope_id, family, head_revision, created_at FROM artifacts"
      " WHERE scope_id = ?1 AND family = ?2 AND is_default = 1"));
  s.Bind(1, scope_id).Bind(2, family);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Artifact>();
  return std::optional<Artifact>(Artifact{s.Text(0), s.Text(1), s.Text(2), s.Int(3), s.Int(4)});
}

Result<Artifact> SqliteTxn::CreateArtifact(const std::string& scope_id, const std::string& family) {
  Artifact a{NewId(family == kHandoffFamily ? kHandoffPrefix : kMemoryPrefix), scope_id, family, 0, NowMillis()};
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "INSERT INTO artifacts(artifact_id, scope_id, family, is_default, head_revision, created_at)"
      " VALUES(?1, ?2, ?3, 1, 0, ?4)"));
  PC_RETURN_IF_ERROR(s.Bind(1, a.artifact_id).Bind(2, scope_id).Bind(3, family).Bind(4, a.created_at_ms).Run());
  return a;
}

Status SqliteTxn::CommitHandoff(const Handoff& h, const std::string& reason) {
  const std::string& artifact = h.ref.artifact_id;
  const int64_t r = h.ref.revision;
  PC_RETURN_IF_ERROR(AppendRevision(artifact, r, h.actor, reason, {}, h.created_at_ms));
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
        "INSERT INTO handoff_versions(artifact_id, revision, from_who, to_who, summary, state)"
        " VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
    PC_RETURN_IF_ERROR(s.Bind(1, artifact).Bind(2, r).Bind(3, h.from).Bind(4, h.to).Bind(5, h.summary).Bind(6, h.state).Run());
  }
  Handoff copy = h;
  for (int list = 0; list < 3; ++list) {
    const std::vector<std::string>& items = ListOf(copy, list);
    for (size_t i = 0; i < items.size(); ++i) {
      PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
          "INSERT INTO handoff_items(artifact_id, revision, list, seq, text) VALUES(?1, ?2, ?3, ?4, ?5)"));
      s.Bind(1, artifact).Bind(2, r).Bind(3, std::string(kLists[list])).Bind(4, static_cast<int64_t>(i));
      PC_RETURN_IF_ERROR(s.Bind(5, items[i]).Run());
    }
  }
  return Status::Ok();
}

Result<std::vector<Handoff>> SqliteTxn::ListHandoffs(const std::string& artifact_id, int64_t before,
                                                     int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT h.revision, h.from_who, h.to_who, h.summary, h.state, r.actor, r.created_at, a.family"
      " FROM handoff_versions h JOIN revisions r ON r.artifact_id = h.artifact_id AND r.revision = h.revision"
      " JOIN artifacts a ON a.artifact_id = h.artifact_id"
      " WHERE h.artifact_id = ?1 AND (?2 = 0 OR h.revision < ?2) ORDER BY h.revision DESC LIMIT ?3"));
  s.Bind(1, artifact_id).Bind(2, before).Bind(3, int64_t{limit});
  std::vector<Handoff> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    Handoff h;
    h.ref = MemoryRef{s.Text(7), artifact_id, s.Int(0)};
    h.from = s.Text(1);
    h.to = s.Text(2);
    h.summary = s.Text(3);
    h.state = s.Text(4);
    h.actor = s.Text(5);
    h.created_at_ms = s.Int(6);
    out.push_back(std::move(h));
  }
  for (Handoff& h : out) {
    PC_ASSIGN_OR_RETURN(Stmt items, db_.Prepare(
        "SELECT list, text FROM handoff_items WHERE artifact_id = ?1 AND revision = ?2 ORDER BY list, seq"));
    items.Bind(1, artifact_id).Bind(2, h.ref.revision);
    while (true) {
      PC_ASSIGN_OR_RETURN(bool row, items.Step());
      if (!row) break;
      std::string list = items.Text(0);
      for (int i = 0; i < 3; ++i)
        if (list == kLists[i]) ListOf(h, i).push_back(items.Text(1));
    }
  }
  return out;
}

Result<std::optional<Handoff>> SqliteTxn::FindHandoff(const std::string& artifact_id, int64_t revision) {
  PC_ASSIGN_OR_RETURN(auto page, ListHandoffs(artifact_id, revision + 1, 1));
  if (page.empty() || page[0].ref.revision != revision) return std::optional<Handoff>();
  return std::optional<Handoff>(std::move(page[0]));
}

}  // namespace pc::sqlite
