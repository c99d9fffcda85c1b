// Graph rows of SqliteTxn (docs/graph.md, schema.cc migration 10): the edges a revision adds, and
// the projection at a revision (edges joined to the manifest lines of their versions).
#include "store/sqlite/rows.h"
#include "store/sqlite/sqlite_txn.h"

namespace pc::sqlite {

Status SqliteTxn::PutGraphEdges(const NewRevision& rev) {
  int64_t seq = 0;
  for (const GraphEdge& e : rev.edges) {
    PC_ASSIGN_OR_RETURN(Stmt s,
                        db_.Prepare("INSERT INTO graph_edges(artifact_id, revision, seq, entry_id, "
                                    "entry_version_id, subject, relation,"
                                    " object, subject_key, object_key, evidence) VALUES(?1, ?2, "
                                    "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"));
    s.Bind(1, rev.info.memory.artifact_id).Bind(2, rev.info.memory.revision).Bind(3, ++seq);
    s.Bind(4, e.entry_id)
        .Bind(5, e.entry_version_id)
        .Bind(6, e.triple.subject)
        .Bind(7, e.triple.relation);
    s.Bind(8, e.triple.object)
        .Bind(9, e.subject_key)
        .Bind(10, e.object_key)
        .Bind(11, JoinLines(e.triple.evidence));
    PC_RETURN_IF_ERROR(s.Run());
  }
  return Status::Ok();
}

Result<std::vector<GraphEdge>> SqliteTxn::ListGraphEdges(const std::string& artifact_id,
                                                         int64_t revision) {
  return GraphEdgesBetween(artifact_id, 0, revision);
}

// A range of graph_edges' key (artifact_id, revision, seq), each edge's manifest line looked up by
// its key: the cost is the edges in (after, revision].
Result<std::vector<GraphEdge>> SqliteTxn::GraphEdgesBetween(const std::string& artifact_id,
                                                            int64_t after, int64_t revision) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "SELECT g.entry_id, g.entry_version_id, g.revision, g.subject, g.relation, g.object, "
          "g.subject_key,"
          " g.object_key, g.evidence FROM graph_edges g JOIN manifest m ON m.artifact_id = "
          "g.artifact_id"
          " AND m.entry_id = g.entry_id AND m.entry_version_id = g.entry_version_id"
          " WHERE g.artifact_id = ?1 AND g.revision > ?3 AND g.revision <= ?2 AND m.active = 1"
          " AND m.from_revision <= ?2 AND (m.to_revision IS NULL OR m.to_revision > ?2) ORDER BY "
          "g.revision, g.seq"));
  s.Bind(1, artifact_id).Bind(2, revision).Bind(3, after);
  std::vector<GraphEdge> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    GraphEdge e;
    e.entry_id = s.Text(0);
    e.entry_version_id = s.Text(1);
    e.revision = s.Int(2);
    e.triple = GraphTriple{s.Text(3), s.Text(4), s.Text(5), SplitLines(s.Text(8))};
    e.subject_key = s.Text(6);
    e.object_key = s.Text(7);
    out.push_back(std::move(e));
  }
  return out;
}

Result<ReadTxn::GraphDelta> SqliteTxn::ListGraphChanges(const std::string& artifact_id,
                                                        int64_t after, int64_t revision) {
  GraphDelta out;
  PC_ASSIGN_OR_RETURN(out.added, GraphEdgesBetween(artifact_id, after, revision));
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db_.Prepare("SELECT from_version_id FROM revision_changes WHERE artifact_id "
                                  "= ?1 AND revision > ?2 AND revision <= ?3"
                                  " AND from_version_id IS NOT NULL ORDER BY revision, seq"));
  s.Bind(1, artifact_id).Bind(2, after).Bind(3, revision);
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.removed_versions.push_back(s.Text(0));
  }
  return out;
}

}  // namespace pc::sqlite
