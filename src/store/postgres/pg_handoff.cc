// Handoff revisions of PgTxn: the revision in `revisions` like any artifact's, its content in
// handoff_contents, handoff_claims and handoff_citations (pg_schema.cc, migration 2; RFC 0048's
// cited structure only, never SQLite's older free-text rows).
#include <algorithm>
#include <unordered_map>

#include "common/clock.h"
#include "common/ids.h"
#include "store/postgres/pg_txn.h"

namespace pc::pg {
namespace {

constexpr const char* kState = "state";
constexpr const char* kNextAction = "next_action";
constexpr const char* kOmission = "omission";

constexpr const char* kClaimInsert =
    "INSERT INTO handoff_claims(artifact_id, revision, claim, seq, text)";
constexpr size_t kClaimWidth = 5;
constexpr const char* kCitationInsert =
    "INSERT INTO handoff_citations(artifact_id, revision, claim, seq, cseq, kind, name, ref_id,"
    " ref_revision, entry_id, entry_version_id)";
constexpr size_t kCitationWidth = 11;
// Rows a statement inserts at most (PostgreSQL takes 65535 parameters).
constexpr size_t kRowsPerInsert = 1000;

// The rows of one claim and its citations, appended to the values of the two inserts.
void AddClaim(Params& claims, Params& citations, const std::string& artifact, int64_t r,
              const char* claim, int64_t seq, const std::string& text,
              const std::vector<HandoffCitation>& cited) {
  claims.insert(claims.end(), {artifact, P(r), claim, P(seq), text});
  for (size_t i = 0; i < cited.size(); ++i) {
    const HandoffCitation& c = cited[i];
    const bool source = c.kind == HandoffCitationKind::kSource;
    citations.insert(
        citations.end(),
        {artifact, P(r), claim, P(seq), P(static_cast<int64_t>(i)), HandoffCitationKindName(c.kind),
         source ? c.source_name : c.artifact.family, source ? c.source_id : c.artifact.artifact_id,
         P(source ? int64_t{0} : c.artifact.revision), c.entry_id, c.entry_version_id});
  }
}

// `head` VALUES($1, …), (…): `rows` rows of `width` parameters.
std::string InsertSql(const char* head, size_t width, size_t rows) {
  std::string sql = std::string(head) + " VALUES";
  for (size_t row = 0, n = 1; row < rows; ++row) {
    sql += row ? ", (" : "(";
    for (size_t col = 0; col < width; ++col, ++n) sql += (col ? ", $" : "$") + std::to_string(n);
    sql += ")";
  }
  return sql;
}

HandoffCitation ReadCitation(const Rows& rows, int row, int col) {
  HandoffCitation c;
  const std::string kind = rows.Text(row, col);
  c.kind = ParseHandoffCitationKind(kind).value_or(HandoffCitationKind::kMemory);
  if (c.kind == HandoffCitationKind::kSource) {
    c.source_name = rows.Text(row, col + 1);
    c.source_id = rows.Text(row, col + 2);
  } else {
    c.artifact =
        MemoryRef{rows.Text(row, col + 1), rows.Text(row, col + 2), rows.Int(row, col + 3)};
    c.entry_id = rows.Text(row, col + 4);
    c.entry_version_id = rows.Text(row, col + 5);
  }
  return c;
}

// Fills in the claims of the handoffs from rows of (revision, claim, seq, text, citation columns)
// ordered by revision, claim, seq and citation.
void ReadClaims(const Rows& rows, const std::unordered_map<int64_t, Handoff*>& by_revision) {
  int64_t last_revision = -1, last_seq = -1;
  std::string last_claim;
  for (int i = 0; i < rows.size(); ++i) {
    const int64_t revision = rows.Int(i, 0);
    const std::string claim = rows.Text(i, 1);
    const int64_t seq = rows.Int(i, 2);
    const bool fresh = revision != last_revision || claim != last_claim || seq != last_seq;
    last_revision = revision;
    last_claim = claim;
    last_seq = seq;
    auto it = by_revision.find(revision);
    if (it == by_revision.end()) continue;
    HandoffContent& content = it->second->content;
    const bool cited = rows.Get(i, 4).has_value();
    if (claim == kOmission) {
      if (fresh) content.omissions.push_back({rows.Text(i, 3), std::nullopt});
      if (cited) content.omissions.back().citation = ReadCitation(rows, i, 4);
      continue;
    }
    HandoffStatement* st = nullptr;
    if (claim == kNextAction) {
      if (fresh) content.next_action = HandoffStatement{rows.Text(i, 3), {}};
      st = &*content.next_action;
    } else {
      if (fresh) content.state.push_back({rows.Text(i, 3), {}});
      st = &content.state.back();
    }
    if (cited) st->citations.push_back(ReadCitation(rows, i, 4));
  }
}

}  // namespace

Result<std::optional<Artifact>> PgTxn::FindDefaultArtifact(const std::string& scope_id,
                                                           const std::string& family) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q(std::string("SELECT artifact_id, scope_id, family, head_revision, created_at FROM artifacts"
                    " WHERE scope_id = $1 AND family = $2 AND is_default") +
            Lock(),
        {scope_id, family}));
  if (r.size() == 0) return std::optional<Artifact>();
  return std::optional<Artifact>(
      Artifact{r.Text(0, 0), r.Text(0, 1), r.Text(0, 2), r.Int(0, 3), r.Int(0, 4)});
}

Result<Artifact> PgTxn::CreateArtifact(const std::string& scope_id, const std::string& family) {
  Artifact a{NewId(family == kHandoffFamily ? kHandoffPrefix : kMemoryPrefix), scope_id, family, 0,
             NowMillis()};
  // A default created concurrently is a unique violation: the write runs again and finds it.
  PC_RETURN_IF_ERROR(
      Q("INSERT INTO artifacts(artifact_id, scope_id, family, is_default, head_revision,"
        " created_at) VALUES($1, $2, $3, true, 0, $4)",
        {a.artifact_id, scope_id, family, P(a.created_at_ms)})
          .status());
  return a;
}

Status PgTxn::CommitHandoff(const Handoff& h, const std::string& reason,
                            const std::vector<std::string>& lineage) {
  const std::string& artifact = h.ref.artifact_id;
  const int64_t r = h.ref.revision;
  const HandoffContent& c = h.content;
  PC_RETURN_IF_ERROR(AppendRevision(artifact, r, h.actor, reason, lineage, h.created_at_ms));
  PC_RETURN_IF_ERROR(Q("INSERT INTO handoff_contents(artifact_id, revision, objective, disposition)"
                       " VALUES($1, $2, $3, $4)",
                       {artifact, P(r), c.objective, HandoffDispositionName(c.disposition)})
                         .status());
  Params claims, citations;
  for (size_t i = 0; i < c.state.size(); ++i)
    AddClaim(claims, citations, artifact, r, kState, static_cast<int64_t>(i), c.state[i].text,
             c.state[i].citations);
  if (c.next_action)
    AddClaim(claims, citations, artifact, r, kNextAction, 0, c.next_action->text,
             c.next_action->citations);
  for (size_t i = 0; i < c.omissions.size(); ++i) {
    std::vector<HandoffCitation> cited;
    if (c.omissions[i].citation) cited.push_back(*c.omissions[i].citation);
    AddClaim(claims, citations, artifact, r, kOmission, static_cast<int64_t>(i),
             c.omissions[i].text, cited);
  }
  // Claims before their citations, a few statements in all (not one per row).
  auto insert = [&](const char* head, size_t width, const Params& values) -> Status {
    for (size_t at = 0; at < values.size(); at += width * kRowsPerInsert) {
      const size_t end = std::min(values.size(), at + width * kRowsPerInsert);
      PC_RETURN_IF_ERROR(Q(InsertSql(head, width, (end - at) / width),
                           Params(values.begin() + static_cast<std::ptrdiff_t>(at),
                                  values.begin() + static_cast<std::ptrdiff_t>(end)))
                             .status());
    }
    return Status::Ok();
  };
  PC_RETURN_IF_ERROR(insert(kClaimInsert, kClaimWidth, claims));
  PC_RETURN_IF_ERROR(insert(kCitationInsert, kCitationWidth, citations));
  if (audit_trail().artifact_id.empty()) audit_trail().artifact_id = artifact;
  audit_trail().handoff_revision = r;
  return Status::Ok();
}

Result<std::vector<Handoff>> PgTxn::ListHandoffs(const std::string& artifact_id, int64_t before,
                                                 int limit) {
  PC_ASSIGN_OR_RETURN(
      Rows rows, Q("SELECT h.revision, r.actor, r.created_at, a.family, h.objective, h.disposition"
                   " FROM handoff_contents h JOIN revisions r ON r.artifact_id = h.artifact_id AND "
                   "r.revision = h.revision"
                   " JOIN artifacts a ON a.artifact_id = h.artifact_id"
                   " WHERE h.artifact_id = $1 AND ($2::bigint = 0 OR h.revision < $2::bigint)"
                   " ORDER BY h.revision DESC LIMIT $3::bigint",
                   {artifact_id, P(before), P(int64_t{limit})}));
  std::vector<Handoff> out;
  for (int i = 0; i < rows.size(); ++i) {
    Handoff h;
    h.ref = MemoryRef{rows.Text(i, 3), artifact_id, rows.Int(i, 0)};
    h.actor = rows.Text(i, 1);
    h.created_at_ms = rows.Int(i, 2);
    h.content.objective = rows.Text(i, 4);
    h.content.disposition =
        ParseHandoffDisposition(rows.Text(i, 5)).value_or(HandoffDisposition::kContinuable);
    out.push_back(std::move(h));
  }
  if (out.empty()) return out;
  // The page's claims in one statement: its revisions are out.back() … out.front().
  std::unordered_map<int64_t, Handoff*> by_revision;
  for (Handoff& h : out) by_revision[h.ref.revision] = &h;
  PC_ASSIGN_OR_RETURN(Rows claims,
                      Q("SELECT c.revision, c.claim, c.seq, c.text, t.kind, t.name, t.ref_id, "
                        "t.ref_revision, t.entry_id,"
                        " t.entry_version_id FROM handoff_claims c LEFT JOIN handoff_citations t "
                        "ON t.artifact_id = c.artifact_id"
                        " AND t.revision = c.revision AND t.claim = c.claim AND t.seq = c.seq"
                        " WHERE c.artifact_id = $1 AND c.revision BETWEEN $2::bigint AND $3::bigint"
                        " ORDER BY c.revision, c.claim, c.seq, t.cseq",
                        {artifact_id, P(out.back().ref.revision), P(out.front().ref.revision)}));
  ReadClaims(claims, by_revision);
  return out;
}

Result<std::optional<Handoff>> PgTxn::FindHandoff(const std::string& artifact_id,
                                                  int64_t revision) {
  PC_ASSIGN_OR_RETURN(auto page, ListHandoffs(artifact_id, revision + 1, 1));
  if (page.empty() || page[0].ref.revision != revision) return std::optional<Handoff>();
  return std::optional<Handoff>(std::move(page[0]));
}

}  // namespace pc::pg
