// A scope's logs: audit rows against committed revisions, the source log and its cursors.
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/json_parse.h"
#include "model/types.h"
#include "verify/checks.h"

namespace pc::verify {
namespace {

// (artifact id, revision) of each revision an audit row says its write committed, with the seq
// of each such row.
using Claims = std::map<std::pair<std::string, int64_t>, std::vector<int64_t>>;

const ArtifactRow* DefaultOf(const std::vector<ArtifactRow>& artifacts, const char* family) {
  for (const ArtifactRow& a : artifacts)
    if (a.family == family && a.is_default) return &a;
  return nullptr;
}

std::optional<int64_t> IntAt(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// The revisions one row's targets name: "revision" (the memory's), "handoff_revision", and
// "artifact": "experience/exp_…@3".
void AddClaims(const nlohmann::json& targets, int64_t seq,
               const std::vector<ArtifactRow>& artifacts, Claims& claims) {
  const ArtifactRow* memory = DefaultOf(artifacts, kMemoryFamily);
  const ArtifactRow* handoff = DefaultOf(artifacts, kHandoffFamily);
  if (auto r = IntAt(targets, "revision"))
    claims[{memory ? memory->artifact_id : "memory", *r}].push_back(seq);
  if (auto r = IntAt(targets, "handoff_revision"))
    claims[{handoff ? handoff->artifact_id : "handoff", *r}].push_back(seq);
  auto it = targets.find("artifact");
  if (it == targets.end() || !it->is_string()) return;
  const std::string ref = it->get<std::string>();
  const size_t slash = ref.find('/'), at = ref.rfind('@');
  if (slash != std::string::npos && at != std::string::npos && at > slash)
    claims[{ref.substr(slash + 1, at - slash - 1), std::atoll(ref.c_str() + at + 1)}].push_back(
        seq);
}

Result<Claims> LoadClaims(VerifySource& src, Sink& sink, const Target& t,
                          const std::vector<ArtifactRow>& artifacts) {
  PC_ASSIGN_OR_RETURN(VerifyRows rows, src.Query("SELECT seq, targets FROM audit_log"
                                                 " WHERE scope_id = $1 AND result = 'ok'"
                                                 " ORDER BY seq",
                                                 {t.scope_id}));
  Claims claims;
  for (size_t i = 0; i < rows.size(); ++i) {
    Result<nlohmann::json> targets = ParseJson(rows.Text(i, 1));
    if (!targets.ok() || !targets->is_object()) {
      sink.Add(t, "audit_row_malformed", std::nullopt, "", "",
               "audit row " + rows.Text(i, 0) + " has targets that are not a JSON object");
      continue;
    }
    AddClaims(*targets, rows.Int(i, 0), artifacts, claims);
  }
  return claims;
}

void CheckAudit(Sink& sink, const Target& scope, const Claims& claims,
                const std::map<std::string, std::vector<RevisionRow>>& revisions,
                int64_t horizon_ms) {
  for (const auto& [artifact, rows] : revisions) {
    const Target t{scope.scope_id, scope.scope_key, artifact};
    for (const RevisionRow& r : rows) {
      auto claim = claims.find({artifact, r.revision});
      if (claim == claims.end() && r.created_at >= horizon_ms)
        sink.Add(t, "audit_row_missing", r.revision, "", "",
                 "revision " + std::to_string(r.revision) + " was committed without its audit row");
      else if (claim != claims.end() && claim->second.size() > 1)
        sink.Add(t, "audit_row_duplicate", r.revision, "", "",
                 std::to_string(static_cast<int64_t>(claim->second.size())) +
                     " audit rows claim revision " + std::to_string(r.revision));
    }
  }
  for (const auto& [key, seqs] : claims) {
    auto it = revisions.find(key.first);
    bool committed = false;
    if (it != revisions.end())
      for (const RevisionRow& r : it->second) committed = committed || r.revision == key.second;
    if (!committed)
      sink.Add(Target{scope.scope_id, scope.scope_key, key.first}, "audit_row_without_write",
               key.second, "", "",
               "audit row " + std::to_string(seqs.front()) + " claims revision " +
                   std::to_string(key.second) + ", which is not committed");
  }
}

Status CheckSourceLog(VerifySource& src, Sink& sink, const Target& t,
                      const std::vector<ArtifactRow>& artifacts) {
  PC_ASSIGN_OR_RETURN(
      VerifyRows log,
      src.Query("SELECT count(*), coalesce(max(position), 0) FROM sources WHERE scope_id = $1",
                {t.scope_id}));
  const int64_t count = log.Int(0, 0), last = log.Int(0, 1);
  if (count != last)
    sink.Add(t, "source_log_gap", std::nullopt, "", "",
             "the source log holds " + std::to_string(count) + " sources up to position " +
                 std::to_string(last));
  PC_ASSIGN_OR_RETURN(VerifyRows cursors,
                      src.Query("SELECT artifact_id, consumer, position FROM cursors"
                                " WHERE scope_id = $1 ORDER BY artifact_id, consumer",
                                {t.scope_id}));
  std::map<std::string, int64_t> heads;  // artifact → head revision
  for (const ArtifactRow& a : artifacts) heads[a.artifact_id] = a.head;
  for (size_t i = 0; i < cursors.size(); ++i) {
    const Target c{t.scope_id, t.scope_key, cursors.Text(i, 0)};
    const int64_t position = cursors.Int(i, 2);
    const auto head = heads.find(c.artifact_id);
    if (cursors.Text(i, 1) == kReviewedRevisionConsumer) {  // a revision, not a position
      if (head != heads.end() && (position < 0 || position > head->second))
        sink.Add(c, "cursor_beyond_head", std::nullopt, "", "",
                 "cursor " + cursors.Text(i, 1) + " is at revision " + std::to_string(position) +
                     "; the memory's head is " + std::to_string(head->second));
    } else if (position < 0 || position > last) {
      sink.Add(c, "cursor_beyond_log", std::nullopt, "", "",
               "cursor " + cursors.Text(i, 1) + " is at position " + std::to_string(position) +
                   "; the source log ends at " + std::to_string(last));
    }
    if (head == heads.end())
      sink.Add(c, "cursor_unknown_artifact", std::nullopt, "", "",
               "cursor " + cursors.Text(i, 1) + " names an artifact the scope does not have");
  }
  return Status::Ok();
}

}  // namespace

Status CheckLogs(VerifySource& src, Sink& sink, const Target& t,
                 const std::vector<ArtifactRow>& artifacts,
                 const std::map<std::string, std::vector<RevisionRow>>& revisions,
                 int64_t horizon_ms) {
  PC_ASSIGN_OR_RETURN(Claims claims, LoadClaims(src, sink, t, artifacts));
  CheckAudit(sink, t, claims, revisions, horizon_ms);
  return CheckSourceLog(src, sink, t, artifacts);
}

}  // namespace pc::verify
