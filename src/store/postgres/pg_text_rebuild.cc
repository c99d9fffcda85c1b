// PgTxn::RebuildTextIndex: one full-text index (pg_text.cc) built from its rows at once, for rows
// that were copied in without it (`powercontext migrate`, pg_import.h). Every document goes
// through AddTextDoc, the one writer of text_docs, text_postings and text_stats, so the index is
// what the revisions (or the appends) would have left: a memory's head entries, retired ones
// marked retired, under their entries' doc numbers; a scope's sources under their positions.
#include "store/postgres/pg_txn.h"

namespace pc::pg {
namespace {

constexpr int64_t kRebuildPage = 500;  // documents read per statement

}  // namespace

Status PgTxn::RebuildTextIndex(const std::string& owner, bool sources) {
  const TextKind kind = sources ? TextKind::kSources : TextKind::kMemory;
  const std::string k = P(static_cast<int64_t>(kind));
  for (const char* table : {"text_postings", "text_docs", "text_stats"})
    PC_RETURN_IF_ERROR(
        Q(std::string("DELETE FROM ") + table + " WHERE kind = $1 AND owner = $2", {k, owner})
            .status());
  for (int64_t after = 0;;) {
    PC_ASSIGN_OR_RETURN(
        Rows r, sources ? Q("SELECT position, content, true, '' FROM sources"
                            " WHERE scope_id = $1 AND position > $2 ORDER BY position LIMIT $3",
                            {owner, P(after), P(kRebuildPage)})
                        : Q("SELECT e.doc, v.text, m.active, m.entry_version_id FROM manifest m"
                            " JOIN entries e ON e.entry_id = m.entry_id"
                            " JOIN entry_versions v ON v.entry_version_id = m.entry_version_id"
                            " WHERE m.artifact_id = $1 AND m.to_revision IS NULL AND e.doc > $2"
                            " ORDER BY e.doc LIMIT $3",
                            {owner, P(after), P(kRebuildPage)}));
    for (int i = 0; i < r.size(); ++i)
      PC_RETURN_IF_ERROR(
          AddTextDoc(kind, owner, r.Int(i, 0), r.Text(i, 1), !Bool(r, i, 2), r.Text(i, 3)));
    if (r.size() < kRebuildPage) return Status::Ok();
    after = r.Int(r.size() - 1, 0);
  }
}

}  // namespace pc::pg
