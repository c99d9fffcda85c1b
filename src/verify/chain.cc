// Revision chains: 1..head with no gap, the head pointer on the last, one change set each.
#include <map>
#include <set>

#include "model/review.h"
#include "model/types.h"
#include "verify/checks.h"

namespace pc::verify {
namespace {

void CheckNumbering(Sink& sink, const Target& t, const ArtifactRow& a,
                    const std::vector<RevisionRow>& revisions) {
  std::set<int64_t> present;
  for (const RevisionRow& r : revisions) {
    present.insert(r.revision);
    if (r.revision < 1 || r.revision > a.head)
      sink.Add(t, "revision_beyond_head", r.revision, "", "",
               "revision " + std::to_string(r.revision) + " exists but the head pointer is " +
                   std::to_string(a.head));
  }
  for (int64_t r = 1; r <= a.head; ++r)
    if (!present.count(r))
      sink.Add(t, "revision_missing", r, "", "",
               "revision " + std::to_string(r) + " of 1.." + std::to_string(a.head) +
                   " has no revision row");
}

// Revision → the numbers of its change rows (memory) or how many content rows it has (others).
Result<std::map<int64_t, std::vector<int64_t>>> LoadChangeSets(VerifySource& src,
                                                               const ArtifactRow& a) {
  std::string sql;
  if (a.family == kMemoryFamily)
    sql = "SELECT revision, seq FROM revision_changes WHERE artifact_id = $1 ORDER BY 1, 2";
  else if (a.family == kHandoffFamily)
    sql = "SELECT revision, 1 FROM handoff_contents WHERE artifact_id = $1 ORDER BY 1";
  else if (a.family == kExperienceFamily)
    sql = "SELECT revision, 1 FROM experience_contents WHERE artifact_id = $1 ORDER BY 1";
  else if (a.family == kSkillFamily)
    sql = "SELECT revision, 1 FROM skill_contents WHERE artifact_id = $1 ORDER BY 1";
  else
    return std::map<int64_t, std::vector<int64_t>>{};
  PC_ASSIGN_OR_RETURN(VerifyRows rows, src.Query(sql, {a.artifact_id}));
  std::map<int64_t, std::vector<int64_t>> out;
  for (size_t i = 0; i < rows.size(); ++i) out[rows.Int(i, 0)].push_back(rows.Int(i, 1));
  return out;
}

bool Numbered(const std::vector<int64_t>& seqs) {
  for (size_t i = 0; i < seqs.size(); ++i)
    if (seqs[i] != static_cast<int64_t>(i + 1)) return false;
  return true;
}

}  // namespace

Status CheckChain(VerifySource& src, Sink& sink, const Target& t, const ArtifactRow& a,
                  const std::vector<RevisionRow>& revisions) {
  CheckNumbering(sink, t, a, revisions);
  PC_ASSIGN_OR_RETURN(auto sets, LoadChangeSets(src, a));
  if (a.family != kMemoryFamily && a.family != kHandoffFamily && a.family != kExperienceFamily &&
      a.family != kSkillFamily)
    return Status::Ok();  // a family this build does not know keeps its changes its own way
  for (const RevisionRow& r : revisions) {
    auto it = sets.find(r.revision);
    if (it == sets.end())
      sink.Add(t, "change_set_missing", r.revision, "", "",
               "revision " + std::to_string(r.revision) + " has no change set");
    else if (!Numbered(it->second))
      sink.Add(t, "change_set_broken", r.revision, "", "",
               "the changes of revision " + std::to_string(r.revision) + " are not numbered 1.." +
                   std::to_string(static_cast<int64_t>(it->second.size())));
  }
  std::set<int64_t> committed;
  for (const RevisionRow& r : revisions) committed.insert(r.revision);
  for (const auto& [revision, seqs] : sets)
    if (!committed.count(revision))
      sink.Add(t, "change_set_without_revision", revision, "", "",
               "changes are recorded for revision " + std::to_string(revision) +
                   ", which has no revision row");
  return Status::Ok();
}

}  // namespace pc::verify
