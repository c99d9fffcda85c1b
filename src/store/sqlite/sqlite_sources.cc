// The source log and extraction cursors of SqliteTxn: append-only rows keyed by (scope, position);
// and the scope's last-flush record (schema.cc migration 11), one row a scope, replaced.
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

Result<std::vector<Source>> SqliteTxn::ListSourcesOfKind(const std::string& scope_id,
                                                         const std::string& kind, int64_t after,
                                                         int limit) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT ") + kSourceColumns +
                                          " FROM sources"
                                          " WHERE scope_id = ?1 AND kind = ?2 AND position > ?3"
                                          " ORDER BY position LIMIT ?4"));
  s.Bind(1, scope_id).Bind(2, kind).Bind(3, after).Bind(4, int64_t{limit});
  std::vector<Source> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back(ReadSource(s));
  }
}

Result<int64_t> SqliteTxn::SourceHighWatermark(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare("SELECT coalesce(max(position), 0) FROM sources WHERE scope_id = ?1"));
  s.Bind(1, scope_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<std::optional<Source>> SqliteTxn::FindSourceByIdempotencyKey(const std::string& scope_id,
                                                                    const std::string& key) {
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db_.Prepare(std::string("SELECT ") + kSourceColumns +
                                  " FROM sources WHERE scope_id = ?1 AND idempotency_key = ?2"));
  s.Bind(1, scope_id).Bind(2, key);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Source>();
  return std::optional<Source>(ReadSource(s));
}

Result<int64_t> SqliteTxn::GetCursor(const std::string& scope_id, const std::string& artifact_id,
                                     const std::string& consumer) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT position FROM cursors WHERE scope_id = ?1 AND "
                                          "artifact_id = ?2 AND consumer = ?3"));
  s.Bind(1, scope_id).Bind(2, artifact_id).Bind(3, consumer);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<Source> SqliteTxn::AppendSource(Source source) {
  PC_ASSIGN_OR_RETURN(int64_t high, SourceHighWatermark(source.scope_id));
  source.position = high + 1;
  {
    PC_ASSIGN_OR_RETURN(int64_t owner, RowidOf("scopes", "scope_id", source.scope_id));
    PC_RETURN_IF_ERROR(
        PutTextRow({TextRows::Row::kSource, owner, source.position, source.content, "", ""}));
  }
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("INSERT INTO sources(") + kSourceColumns +
                                          ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  s.Bind(1, source.source_id)
      .Bind(2, source.scope_id)
      .Bind(3, source.position)
      .Bind(4, source.kind);
  s.Bind(5, source.purpose).Bind(6, source.content).Bind(7, source.metadata_json);
  s.Bind(8, source.idempotency_key).Bind(9, source.created_at_ms);
  PC_RETURN_IF_ERROR(s.Run());
  if (audit_trail().scope_id.empty()) audit_trail().scope_id = source.scope_id;
  audit_trail().AddSource(source.source_id);
  return source;
}

Status SqliteTxn::SetCursor(const std::string& scope_id, const std::string& artifact_id,
                            const std::string& consumer, int64_t position) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare("INSERT INTO cursors(scope_id, artifact_id, consumer, position, updated_at)"
                  " VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(scope_id, artifact_id, consumer)"
                  " DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at"));
  s.Bind(1, scope_id).Bind(2, artifact_id).Bind(3, consumer).Bind(4, position).Bind(5, NowMillis());
  PC_RETURN_IF_ERROR(s.Run());
  if (audit_trail().scope_id.empty()) audit_trail().scope_id = scope_id;
  audit_trail().cursor = position;
  return Status::Ok();
}

Result<std::optional<std::string>> SqliteTxn::FindLastFlush(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT record FROM last_flush WHERE scope_id = ?1"));
  s.Bind(1, scope_id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(s.Text(0));
}

Status SqliteTxn::PutLastFlush(const std::string& scope_id, int64_t at_ms,
                               const std::string& record) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "INSERT INTO last_flush(scope_id, at_ms, record) VALUES(?1, ?2, ?3)"
          " ON CONFLICT(scope_id) DO UPDATE SET at_ms = excluded.at_ms, record = excluded.record"));
  return s.Bind(1, scope_id).Bind(2, at_ms).Bind(3, record).Run();
}

}  // namespace pc::sqlite
