// Handoff revisions of SqliteTxn: the revision in `revisions` like any artifact's, its content in
// handoff_contents, handoff_claims and handoff_citations (schema.cc, migration 6).
#include "store/sqlite/sqlite_handoff.h"

#include "common/clock.h"
#include "common/ids.h"
#include "common/utf8.h"
#include "store/sqlite/sqlite_txn.h"

namespace pc::sqlite {
namespace {

constexpr const char* kState = "state";
constexpr const char* kNextAction = "next_action";
constexpr const char* kOmission = "omission";
// The spec's limits (HandoffContent): what a migrated free-text handoff is cut to.
constexpr size_t kMaxStatements = 64;
constexpr size_t kMaxOmissions = 64;
constexpr size_t kMaxTextBytes = 8192;  // ≤ 8192 bytes is ≤ 8192 characters

Status WriteCitation(Db& db, const std::string& artifact, int64_t r, const char* claim, int64_t seq,
                     int64_t cseq, const HandoffCitation& c) {
  PC_ASSIGN_OR_RETURN(Stmt s, db.Prepare("INSERT INTO handoff_citations(artifact_id, revision, "
                                         "claim, seq, cseq, kind, name, ref_id,"
                                         " ref_revision, entry_id, entry_version_id) VALUES(?1, "
                                         "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"));
  const bool source = c.kind == HandoffCitationKind::kSource;
  s.Bind(1, artifact).Bind(2, r).Bind(3, std::string(claim)).Bind(4, seq).Bind(5, cseq);
  s.Bind(6, std::string(HandoffCitationKindName(c.kind)))
      .Bind(7, source ? c.source_name : c.artifact.family);
  s.Bind(8, source ? c.source_id : c.artifact.artifact_id)
      .Bind(9, source ? int64_t{0} : c.artifact.revision);
  return s.Bind(10, c.entry_id).Bind(11, c.entry_version_id).Run();
}

Status WriteClaim(Db& db, const std::string& artifact, int64_t r, const char* claim, int64_t seq,
                  const std::string& text, const std::vector<HandoffCitation>& citations) {
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db.Prepare("INSERT INTO handoff_claims(artifact_id, revision, "
                                           "claim, seq, text) VALUES(?1, ?2, ?3, ?4, ?5)"));
    PC_RETURN_IF_ERROR(s.Bind(1, artifact)
                           .Bind(2, r)
                           .Bind(3, std::string(claim))
                           .Bind(4, seq)
                           .Bind(5, text)
                           .Run());
  }
  for (size_t i = 0; i < citations.size(); ++i)
    PC_RETURN_IF_ERROR(
        WriteCitation(db, artifact, r, claim, seq, static_cast<int64_t>(i), citations[i]));
  return Status::Ok();
}

HandoffCitation ReadCitation(const Stmt& s, int col) {
  HandoffCitation c;
  std::string kind = s.Text(col);
  c.kind = ParseHandoffCitationKind(kind).value_or(HandoffCitationKind::kMemory);
  if (c.kind == HandoffCitationKind::kSource) {
    c.source_name = s.Text(col + 1);
    c.source_id = s.Text(col + 2);
  } else {
    c.artifact = MemoryRef{s.Text(col + 1), s.Text(col + 2), s.Int(col + 3)};
    c.entry_id = s.Text(col + 4);
    c.entry_version_id = s.Text(col + 5);
  }
  return c;
}

// Fills in `h.content` from the content tables.
Status ReadContent(Db& db, Handoff& h) {
  const std::string& artifact = h.ref.artifact_id;
  const int64_t r = h.ref.revision;
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db.Prepare("SELECT objective, disposition FROM handoff_contents "
                                           "WHERE artifact_id = ?1 AND revision = ?2"));
    s.Bind(1, artifact).Bind(2, r);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Internal("handoff revision " + std::to_string(r) + " has no content");
    h.content.objective = s.Text(0);
    h.content.disposition =
        ParseHandoffDisposition(s.Text(1)).value_or(HandoffDisposition::kContinuable);
  }
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db.Prepare(
          "SELECT c.claim, c.seq, c.text, t.kind, t.name, t.ref_id, t.ref_revision, t.entry_id, "
          "t.entry_version_id"
          " FROM handoff_claims c LEFT JOIN handoff_citations t ON t.artifact_id = c.artifact_id"
          " AND t.revision = c.revision AND t.claim = c.claim AND t.seq = c.seq"
          " WHERE c.artifact_id = ?1 AND c.revision = ?2 ORDER BY c.claim, c.seq, t.cseq"));
  s.Bind(1, artifact).Bind(2, r);
  std::string last_claim;
  int64_t last_seq = -1;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    const std::string claim = s.Text(0);
    const int64_t seq = s.Int(1);
    const bool fresh = claim != last_claim || seq != last_seq;
    last_claim = claim;
    last_seq = seq;
    const bool cited = !s.IsNull(3);
    if (claim == kOmission) {
      if (fresh) h.content.omissions.push_back({s.Text(2), std::nullopt});
      if (cited) h.content.omissions.back().citation = ReadCitation(s, 3);
      continue;
    }
    HandoffStatement* st = nullptr;
    if (claim == kNextAction) {
      if (fresh) h.content.next_action = HandoffStatement{s.Text(2), {}};
      st = &*h.content.next_action;
    } else {
      if (fresh) h.content.state.push_back({s.Text(2), {}});
      st = &h.content.state.back();
    }
    if (cited) st->citations.push_back(ReadCitation(s, 3));
  }
  return Status::Ok();
}

std::string Cut(const std::string& text) { return CutUtf8(text, kMaxTextBytes); }

}  // namespace

Status WriteHandoffContent(Db& db, const std::string& artifact, int64_t r,
                           const HandoffContent& c) {
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db.Prepare("INSERT INTO handoff_contents(artifact_id, revision, "
                                           "objective, disposition) VALUES(?1, ?2, ?3, ?4)"));
    PC_RETURN_IF_ERROR(s.Bind(1, artifact)
                           .Bind(2, r)
                           .Bind(3, c.objective)
                           .Bind(4, std::string(HandoffDispositionName(c.disposition)))
                           .Run());
  }
  for (size_t i = 0; i < c.state.size(); ++i)
    PC_RETURN_IF_ERROR(WriteClaim(db, artifact, r, kState, static_cast<int64_t>(i), c.state[i].text,
                                  c.state[i].citations));
  if (c.next_action)
    PC_RETURN_IF_ERROR(
        WriteClaim(db, artifact, r, kNextAction, 0, c.next_action->text, c.next_action->citations));
  for (size_t i = 0; i < c.omissions.size(); ++i) {
    std::vector<HandoffCitation> cited;
    if (c.omissions[i].citation) cited.push_back(*c.omissions[i].citation);
    PC_RETURN_IF_ERROR(WriteClaim(db, artifact, r, kOmission, static_cast<int64_t>(i),
                                  c.omissions[i].text, cited));
  }
  return Status::Ok();
}

HandoffContent LegacyHandoffContent(const LegacyHandoff& old, const MemoryRef& itself) {
  HandoffCitation self;
  self.kind = HandoffCitationKind::kArtifact;
  self.artifact = itself;
  HandoffContent c;
  c.objective = Cut(old.summary);
  c.disposition = HandoffDisposition::kContinuable;  // a free-text handoff passed the work on
  std::vector<std::string> state;
  if (!old.from.empty() || !old.to.empty())
    state.push_back("Handed over" + (old.from.empty() ? std::string() : " by " + old.from) +
                    (old.to.empty() ? std::string() : " to " + old.to) + ".");
  if (!old.state.empty()) state.push_back(old.state);
  for (const std::string& d : old.decisions) state.push_back("Decision: " + d);
  for (const std::string& q : old.open_questions) state.push_back("Open question: " + q);
  if (old.state.empty() && old.decisions.empty() && old.open_questions.empty())
    state.push_back(old.summary);  // the state needs one statement: the summary is the one there is
  std::vector<std::string> omitted;
  for (size_t i = 0; i < state.size(); ++i) {
    if (i < kMaxStatements)
      c.state.push_back({Cut(state[i]), {self}});
    else
      omitted.push_back("Not carried as state (at most 64 statements): " + state[i]);
  }
  if (!old.next_steps.empty()) c.next_action = HandoffStatement{Cut(old.next_steps[0]), {self}};
  for (size_t i = 1; i < old.next_steps.size(); ++i)
    omitted.push_back("Further next step (a handoff carries one next action): " +
                      old.next_steps[i]);
  for (size_t i = 0; i < omitted.size(); ++i) {
    if (i + 1 == kMaxOmissions && omitted.size() > kMaxOmissions) {
      c.omissions.push_back({std::to_string(omitted.size() - i) +
                                 " more items of the free-text handoff are not carried",
                             self});
      break;
    }
    c.omissions.push_back({Cut(omitted[i]), self});
  }
  return c;
}

Status MigrateLegacyHandoffs(Db& db) {
  struct Row {
    std::string artifact_id, family;
    int64_t revision = 0;
    LegacyHandoff old;
  };
  std::vector<Row> rows;
  {
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db.Prepare(
            "SELECT h.artifact_id, a.family, h.revision, h.from_who, h.to_who, h.summary, h.state"
            " FROM handoff_versions h JOIN artifacts a ON a.artifact_id = h.artifact_id"
            " ORDER BY h.artifact_id, h.revision"));
    while (true) {
      PC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      rows.push_back({s.Text(0),
                      s.Text(1),
                      s.Int(2),
                      {s.Text(3), s.Text(4), s.Text(5), s.Text(6), {}, {}, {}}});
    }
  }
  for (Row& r : rows) {
    {
      PC_ASSIGN_OR_RETURN(Stmt s,
                          db.Prepare("SELECT list, text FROM handoff_items WHERE artifact_id = ?1 "
                                     "AND revision = ?2 ORDER BY list, seq"));
      s.Bind(1, r.artifact_id).Bind(2, r.revision);
      while (true) {
        PC_ASSIGN_OR_RETURN(bool row, s.Step());
        if (!row) break;
        const std::string list = s.Text(0);
        (list == "decisions"    ? r.old.decisions
         : list == "next_steps" ? r.old.next_steps
                                : r.old.open_questions)
            .push_back(s.Text(1));
      }
    }
    PC_RETURN_IF_ERROR(WriteHandoffContent(
        db, r.artifact_id, r.revision,
        LegacyHandoffContent(r.old, MemoryRef{r.family, r.artifact_id, r.revision})));
  }
  return Status::Ok();
}

Result<std::optional<Artifact>> SqliteTxn::FindDefaultArtifact(const std::string& scope_id,
                                                               const std::string& family) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare("SELECT artifact_id, scope_id, family, head_revision, created_at FROM artifacts"
                  " WHERE scope_id = ?1 AND family = ?2 AND is_default = 1"));
  s.Bind(1, scope_id).Bind(2, family);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Artifact>();
  return std::optional<Artifact>(Artifact{s.Text(0), s.Text(1), s.Text(2), s.Int(3), s.Int(4)});
}

Result<Artifact> SqliteTxn::CreateArtifact(const std::string& scope_id, const std::string& family) {
  Artifact a{NewId(family == kHandoffFamily ? kHandoffPrefix : kMemoryPrefix), scope_id, family, 0,
             NowMillis()};
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("INSERT INTO artifacts(artifact_id, scope_id, family, "
                                          "is_default, head_revision, created_at)"
                                          " VALUES(?1, ?2, ?3, 1, 0, ?4)"));
  PC_RETURN_IF_ERROR(
      s.Bind(1, a.artifact_id).Bind(2, scope_id).Bind(3, family).Bind(4, a.created_at_ms).Run());
  return a;
}

Status SqliteTxn::CommitHandoff(const Handoff& h, const std::string& reason,
                                const std::vector<std::string>& lineage) {
  PC_RETURN_IF_ERROR(
      AppendRevision(h.ref.artifact_id, h.ref.revision, h.actor, reason, lineage, h.created_at_ms));
  PC_RETURN_IF_ERROR(WriteHandoffContent(db_, h.ref.artifact_id, h.ref.revision, h.content));
  if (audit_trail().artifact_id.empty()) audit_trail().artifact_id = h.ref.artifact_id;
  audit_trail().handoff_revision = h.ref.revision;
  return Status::Ok();
}

Result<std::vector<Handoff>> SqliteTxn::ListHandoffs(const std::string& artifact_id, int64_t before,
                                                     int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db_.Prepare("SELECT h.revision, r.actor, r.created_at, a.family"
                                  " FROM handoff_contents h JOIN revisions r ON r.artifact_id = "
                                  "h.artifact_id AND r.revision = h.revision"
                                  " JOIN artifacts a ON a.artifact_id = h.artifact_id"
                                  " WHERE h.artifact_id = ?1 AND (?2 = 0 OR h.revision < ?2) ORDER "
                                  "BY h.revision DESC LIMIT ?3"));
  s.Bind(1, artifact_id).Bind(2, before).Bind(3, int64_t{limit});
  std::vector<Handoff> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    Handoff h;
    h.ref = MemoryRef{s.Text(3), artifact_id, s.Int(0)};
    h.actor = s.Text(1);
    h.created_at_ms = s.Int(2);
    out.push_back(std::move(h));
  }
  for (Handoff& h : out) PC_RETURN_IF_ERROR(ReadContent(db_, h));
  return out;
}

Result<std::optional<Handoff>> SqliteTxn::FindHandoff(const std::string& artifact_id,
                                                      int64_t revision) {
  PC_ASSIGN_OR_RETURN(auto page, ListHandoffs(artifact_id, revision + 1, 1));
  if (page.empty() || page[0].ref.revision != revision) return std::optional<Handoff>();
  return std::optional<Handoff>(std::move(page[0]));
}

Result<std::optional<Source>> SqliteTxn::FindSourceByPublicId(const std::string& scope_id,
                                                              const std::string& public_id) {
  PC_ASSIGN_OR_RETURN(std::optional<Source> by_key,
                      FindSourceByIdempotencyKey(scope_id, public_id));
  if (by_key) return by_key;
  int64_t position = 0;
  {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT position FROM sources WHERE scope_id = ?1 AND "
                                            "source_id = ?2 AND idempotency_key IS NULL"));
    s.Bind(1, scope_id).Bind(2, public_id);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return std::optional<Source>();
    position = s.Int(0);
  }
  PC_ASSIGN_OR_RETURN(std::vector<Source> one, ListSources(scope_id, position - 1, 1));
  if (one.empty()) return std::optional<Source>();
  return std::optional<Source>(std::move(one[0]));
}

}  // namespace pc::sqlite
