// The source log and extraction cursors of SqliteTxn: append-only rows keyed by (scope, position).
#include "common/clock.h"
#include "store/sqlite/sqlite_txn.h"

namespace pc::sqlite {
namespace {

constexpr const char* kSourceColumns =
    "source_id, scope_id, position, kind, purpose, content, metadata, idempotency_key, created_at";

Source ReadSource(const Stmt& s) {
  Source out;
  out.source_id = s.Text(0);
  out.scope_id = s.Text(1);
  out.position = s.Int(2);
  out.kind = s.Text(3);
  out.purpose = s.Text(4);
  out.content = s.Text(5);
  out.metadata_json = s.Text(6);
  out.idempotency_key = s.OptText(7);
  out.created_at_ms = s.Int(8);
  return out;
}

}  // namespace

Result<std::vector<Source>> SqliteTxn::ListSources(const std::string& scope_id, int64_t after,
                                                   int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT ") + kSourceColumns +
                                          " FROM sources WHERE scope_id = ?1 AND position > ?2"
                                          " ORDER BY position LIMIT ?3"));
  s.Bind(1, scope_id).Bind(2, after).Bind(3, int64_t{limit});
  std::vector<Source> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back(ReadSource(s));
  }
}

Result<int64_t> SqliteTxn::SourceHighWatermark(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT coalesce(max(position), 0) FROM sources WHERE scope_id = ?1"));
  s.Bind(1, scope_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<std::optional<Source>> SqliteTxn::FindSourceByIdempotencyKey(const std::string& scope_id,
                                                                    const std::string& key) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT ") + kSourceColumns +
                                          " FROM sources WHERE scope_id = ?1 AND idempotency_key = ?2"));
  s.Bind(1, scope_id).Bind(2, key);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Source>();
  return std::optional<Source>(ReadSource(s));
}

Result<int64_t> SqliteTxn::GetCursor(const std::string& scope_id, const std::string& artifact_id,
                                     const std::string& consumer) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "SELECT position FROM cursors WHERE scope_id = ?1 AND artifact_id = ?2 AND consumer = ?3"));
  s.Bind(1, scope_id).Bind(2, artifact_id).Bind(3, consumer);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<std::string> SqliteTxn::SourceTextTable(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT rowid FROM scopes WHERE scope_id = ?1"));
  s.Bind(1, scope_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound("no scope " + scope_id);
  return "fts_src_" + std::to_string(s.Int(0));  // an integer: a safe identifier
}

Result<bool> SqliteTxn::TableExists(const std::string& table) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1"));
  s.Bind(1, table);
  return s.Step();
}

// One FTS5 table per scope over its source log (rowid = position): experience recall ranks a
// scope's own work records by their own statistics, as memory search does.
Status SqliteTxn::EnsureSourceTextTable(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(std::string table, SourceTextTable(scope_id));
  PC_ASSIGN_OR_RETURN(bool exists, TableExists(table));
  if (exists) return Status::Ok();
  PC_RETURN_IF_ERROR(db_.Exec("CREATE VIRTUAL TABLE " + table + " USING fts5(text, tokenize = 'porter pc')"));
  PC_ASSIGN_OR_RETURN(Stmt fill, db_.Prepare(
      "INSERT INTO " + table + "(rowid, text) SELECT position, content FROM sources WHERE scope_id = ?1"));
  return fill.Bind(1, scope_id).Run();
}

Result<std::vector<ReadTxn::SourceHit>> SqliteTxn::SearchSources(const std::string& scope_id,
                                                                 const TextQuery& query, int limit) {
  std::vector<SourceHit> out;
  if (query.empty()) return out;
  PC_RETURN_IF_ERROR(FlushDeferredText());
  PC_ASSIGN_OR_RETURN(std::string table, SourceTextTable(scope_id));
  PC_ASSIGN_OR_RETURN(bool exists, TableExists(table));
  if (!exists) return out;  // no source yet
  PC_ASSIGN_OR_RETURN(TextPlan plan, PlanText(table, query));
  std::vector<std::pair<int64_t, double>> ranked;  // position, score
  // `docs`: the phrases' document counts, for pc_bm25 (by_rank only).
  auto run = [&](const std::string& sql, const TextQuery& phrases, const char* joiner,
                 const std::string& docs = "") -> Status {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(sql));
    s.Bind(1, "text : (" + MatchExpression(phrases, joiner) + ")").Bind(2, int64_t{limit});
    if (!docs.empty()) s.Bind(3, docs);
    while (true) {
      PC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return Status::Ok();
      bool seen = false;
      for (const auto& r : ranked) seen = seen || r.first == s.Int(0);
      if (!seen && static_cast<int>(ranked.size()) < limit) ranked.push_back({s.Int(0), -s.Double(1)});
    }
  };
  // The same plan as memory search (SqliteTxn::SearchText): rarer phrases by pc_bm25; if every
  // phrase is common, the newest records with all of them, then any, by pc_tf_rank.
  const std::string by_rank = "SELECT rowid, pc_bm25(" + table + ", ?3) AS r FROM " + table + " WHERE " + table +
                              " MATCH ?1 ORDER BY r LIMIT ?2";
  const std::string recent = "SELECT * FROM (SELECT rowid, pc_tf_rank(" + table + ") AS r FROM " + table +
                             " WHERE " + table + " MATCH ?1 ORDER BY rowid DESC LIMIT " +
                             std::to_string(kRecentCandidates) + ") ORDER BY r LIMIT ?2";
  if (!plan.rare.empty()) {
    PC_RETURN_IF_ERROR(run(by_rank, plan.rare, " OR ", plan.rare_docs));
  } else if (!plan.common.empty()) {
    PC_RETURN_IF_ERROR(run(recent, plan.common, " AND "));
    if (static_cast<int>(ranked.size()) < limit && plan.common.phrases.size() > 1)
      PC_RETURN_IF_ERROR(run(recent, plan.common, " OR "));
  }
  for (const auto& [position, score] : ranked) {
    PC_ASSIGN_OR_RETURN(auto one, ListSources(scope_id, position - 1, 1));
    if (one.empty() || one[0].position != position) return Internal("source index names a missing source");
    out.push_back(SourceHit{std::move(one[0]), score});
  }
  return out;
}

Result<Source> SqliteTxn::AppendSource(Source source) {
  PC_ASSIGN_OR_RETURN(int64_t high, SourceHighWatermark(source.scope_id));
  source.position = high + 1;
  PC_RETURN_IF_ERROR(EnsureSourceTextTable(source.scope_id));
  {
    PC_ASSIGN_OR_RETURN(std::string table, SourceTextTable(source.scope_id));
    PC_RETURN_IF_ERROR(PutTextRow({TextRows::Row::kSource, table, source.position, source.content, "", ""}));
  }
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("INSERT INTO sources(") + kSourceColumns +
                                          ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  s.Bind(1, source.source_id).Bind(2, source.scope_id).Bind(3, source.position).Bind(4, source.kind);
  s.Bind(5, source.purpose).Bind(6, source.content).Bind(7, source.metadata_json);
  s.Bind(8, source.idempotency_key).Bind(9, source.created_at_ms);
  PC_RETURN_IF_ERROR(s.Run());
  return source;
}

Status SqliteTxn::SetCursor(const std::string& scope_id, const std::string& artifact_id,
                            const std::string& consumer, int64_t position) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(
      "INSERT INTO cursors(scope_id, artifact_id, consumer, position, updated_at)"
      " VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(scope_id, artifact_id, consumer)"
      " DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at"));
  s.Bind(1, scope_id).Bind(2, artifact_id).Bind(3, consumer).Bind(4, position).Bind(5, NowMillis());
  return s.Run();
}

}  // namespace pc::sqlite
