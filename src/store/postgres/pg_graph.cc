// Graph rows of PgTxn (docs/graph.md, pg_schema.cc migration 5), as in the SQLite store
// (sqlite_graph.cc).
#include "store/postgres/pg_txn.h"
#include "store/store_rows.h"

namespace pc::pg {

Status PgTxn::PutGraphEdges(const NewRevision& rev) {
  int64_t seq = 0;
  for (const GraphEdge& e : rev.edges)
    PC_RETURN_IF_ERROR(Send(
        "INSERT INTO graph_edges(artifact_id, revision, seq, entry_id, entry_version_id, subject,"
        " relation, object, subject_key, object_key, evidence)"
        " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        {rev.info.memory.artifact_id, P(rev.info.memory.revision), P(++seq), e.entry_id,
         e.entry_version_id, e.triple.subject, e.triple.relation, e.triple.object, e.subject_key,
         e.object_key, JoinLines(e.triple.evidence)}));
  return Status::Ok();
}

Result<std::vector<GraphEdge>> PgTxn::ListGraphEdges(const std::string& artifact_id,
                                                     int64_t revision) {
  return GraphEdgesBetween(artifact_id, 0, revision);
}

Result<std::vector<GraphEdge>> PgTxn::GraphEdgesBetween(const std::string& artifact_id,
                                                        int64_t after, int64_t revision) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q("SELECT g.entry_id, g.entry_version_id, g.revision, g.subject, g.relation, g.object,"
        " g.subject_key, g.object_key, g.evidence FROM graph_edges g JOIN manifest m"
        " ON m.artifact_id = g.artifact_id AND m.entry_id = g.entry_id"
        " AND m.entry_version_id = g.entry_version_id"
        " WHERE g.artifact_id = $1 AND g.revision > $3 AND g.revision <= $2 AND m.active"
        " AND m.from_revision <= $2 AND (m.to_revision IS NULL OR m.to_revision > $2)"
        " ORDER BY g.revision, g.seq",
        {artifact_id, P(revision), P(after)}));
  std::vector<GraphEdge> out;
  for (int i = 0; i < r.size(); ++i) {
    GraphEdge e;
    e.entry_id = r.Text(i, 0);
    e.entry_version_id = r.Text(i, 1);
    e.revision = r.Int(i, 2);
    e.triple = GraphTriple{r.Text(i, 3), r.Text(i, 4), r.Text(i, 5), SplitLines(r.Text(i, 8))};
    e.subject_key = r.Text(i, 6);
    e.object_key = r.Text(i, 7);
    out.push_back(std::move(e));
  }
  return out;
}

Result<ReadTxn::GraphDelta> PgTxn::ListGraphChanges(const std::string& artifact_id, int64_t after,
                                                    int64_t revision) {
  GraphDelta out;
  PC_ASSIGN_OR_RETURN(out.added, GraphEdgesBetween(artifact_id, after, revision));
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q("SELECT from_version_id FROM revision_changes WHERE artifact_id = $1 AND revision > $2"
        " AND revision <= $3 AND from_version_id IS NOT NULL ORDER BY revision, seq",
        {artifact_id, P(after), P(revision)}));
  for (int i = 0; i < r.size(); ++i) out.removed_versions.push_back(r.Text(i, 0));
  return out;
}

}  // namespace pc::pg
