// A memory's projections of its head: full-text documents and vector rows.
#include <set>

#include "search/index_terms.h"
#include "verify/memory_rows.h"

namespace pc::verify {
namespace {

// One head entry's document against its manifest line and version.
void CheckDoc(Sink& sink, const Target& t, const std::string& entry, const HeadLine& head,
              const VerifyTextDoc& d, const VersionRow* version) {
  if (!d.malformed.empty())
    sink.Add(t, "fts_row_malformed", std::nullopt, entry, d.entry_version_id,
             "full-text document " + d.doc + ": " + d.malformed);
  if (d.entry_version_id != head.version) {
    sink.Add(t, "fts_row_stale", std::nullopt, entry, head.version,
             "full-text document " + d.doc + " holds version " + d.entry_version_id +
                 ", the head is at " + head.version);
    return;
  }
  if (d.retired == head.active)
    sink.Add(t, "fts_state_mismatch", std::nullopt, entry, head.version,
             "full-text document " + d.doc + " is " + (d.retired ? "retired" : "active") +
                 " but the entry is " + (head.active ? "active" : "retired") + " at the head");
  if (!version) return;  // version_missing says so
  if (d.text && *d.text != version->text)
    sink.Add(t, "fts_text_mismatch", std::nullopt, entry, head.version,
             "full-text document " + d.doc + " indexes other text than the version's");
  const int64_t length = DocumentLength(version->text);
  if (d.tokens != length)
    sink.Add(t, "fts_length_mismatch", std::nullopt, entry, head.version,
             "full-text document " + d.doc + " counts " + std::to_string(d.tokens) +
                 " tokens, the version's text has " + std::to_string(length));
}

}  // namespace

Status CheckText(VerifySource& src, Sink& sink, const Target& t, const MemoryRows& m) {
  PC_ASSIGN_OR_RETURN(std::vector<VerifyTextDoc> docs, src.TextDocs(t.artifact_id));
  std::set<std::string> seen;
  for (const VerifyTextDoc& d : docs) {
    auto head = m.head.find(d.entry_id);
    if (d.entry_id.empty() || head == m.head.end() || !seen.insert(d.entry_id).second) {
      sink.Add(t, "fts_row_stray", std::nullopt, d.entry_id, d.entry_version_id,
               "full-text document " + d.doc + " stands for no head entry of the memory" +
                   (d.entry_id.empty() ? "" : " (or for one already indexed)"));
      continue;
    }
    auto version = m.version_by_id.find(head->second.version);
    CheckDoc(sink, t, d.entry_id, head->second, d,
             version == m.version_by_id.end() ? nullptr : version->second);
  }
  for (const auto& [entry, line] : m.head)
    if (!seen.count(entry))
      sink.Add(t, "fts_row_missing", std::nullopt, entry, line.version,
               std::string("the ") + (line.active ? "active" : "retired") +
                   " head entry has no full-text document");
  return Status::Ok();
}

namespace {

struct VectorRow {
  std::string version, profile;
  bool active = true, has_vector = false;
};

Result<std::map<std::string, VectorRow>> LoadVectors(VerifySource& src, const std::string& id) {
  PC_ASSIGN_OR_RETURN(
      VerifyRows rows,
      src.Query("SELECT entry_id, entry_version_id, CASE WHEN active THEN 1 ELSE 0 END,"
                " coalesce(profile, ''), CASE WHEN vector IS NULL THEN 0 ELSE 1 END"
                " FROM entry_vectors WHERE artifact_id = $1",
                {id}));
  std::map<std::string, VectorRow> out;
  for (size_t i = 0; i < rows.size(); ++i)
    out[rows.Text(i, 0)] = {rows.Text(i, 1), rows.Text(i, 3), rows.Int(i, 2) != 0,
                            rows.Int(i, 4) != 0};
  return out;
}

void ReportMissing(Sink& sink, const Target& t, const ArtifactRow& a,
                   const std::vector<std::string>& missing, bool embedder_configured) {
  if (missing.empty() || (!embedder_configured && a.vector_profile.empty())) return;
  sink.Warn(t, "vectors_missing", missing.front(),
            std::to_string(missing.size()) + " active head entries have no vector" +
                (a.vector_profile.empty() ? "" : " of profile " + a.vector_profile) +
                " (the first is named); `powercontext reindex` or the server's backfill computes "
                "them");
}

}  // namespace

Status CheckVectors(VerifySource& src, Sink& sink, const Target& t, const ArtifactRow& a,
                    const MemoryRows& m, bool embedder_configured) {
  PC_ASSIGN_OR_RETURN(auto rows, LoadVectors(src, a.artifact_id));
  std::vector<std::string> missing;
  for (const auto& [entry, line] : m.head) {
    auto row = rows.find(entry);
    if (row == rows.end()) {
      sink.Add(t, "vector_row_missing", std::nullopt, entry, line.version,
               "the head entry has no row in the vector projection");
      continue;
    }
    const VectorRow& v = row->second;
    if (v.version != line.version || v.active != line.active)
      sink.Add(t, "vector_row_stale", std::nullopt, entry, line.version,
               "the vector row holds " + v.version + (v.active ? " active" : " retired") +
                   ", the head " + line.version + (line.active ? " active" : " retired"));
    if (line.active && (!v.has_vector || v.profile != a.vector_profile)) missing.push_back(entry);
  }
  for (const auto& [entry, v] : rows)
    if (!m.head.count(entry))
      sink.Add(t, "vector_row_stray", std::nullopt, entry, v.version,
               "a vector row stands for no head entry of the memory");
  if (static_cast<int64_t>(missing.size()) != a.vector_missing)
    sink.Add(t, "vector_count_mismatch", std::nullopt, "", "",
             "the memory records " + std::to_string(a.vector_missing) +
                 " missing vectors; there are " + std::to_string(missing.size()));
  ReportMissing(sink, t, a, missing, embedder_configured);
  return Status::Ok();
}

}  // namespace pc::verify
