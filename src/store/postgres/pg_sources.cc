// The source log and extraction cursors of PgTxn: append-only rows keyed by (scope, position);
// and the scope's last-flush record (pg_schema.cc migration 6), one row a scope, replaced.
#include "common/clock.h"
#include "store/postgres/pg_txn.h"

namespace pc::pg {
namespace {

constexpr const char* kSourceColumns =
    "source_id, scope_id, position, kind, purpose, content, metadata, idempotency_key, created_at";

Source ReadSource(const Rows& r, int row) {
  Source out;
  out.source_id = r.Text(row, 0);
  out.scope_id = r.Text(row, 1);
  out.position = r.Int(row, 2);
  out.kind = r.Text(row, 3);
  out.purpose = r.Text(row, 4);
  out.content = r.Text(row, 5);
  out.metadata_json = r.Text(row, 6);
  out.idempotency_key = r.Get(row, 7);
  out.created_at_ms = r.Int(row, 8);
  return out;
}

std::optional<Source> FirstSource(const Rows& r) {
  if (r.size() == 0) return std::nullopt;
  return ReadSource(r, 0);
}

}  // namespace

Result<std::vector<Source>> PgTxn::ListSources(const std::string& scope_id, int64_t after,
                                               int limit) {
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT ") + kSourceColumns +
                                    " FROM sources WHERE scope_id = $1 AND position > $2::bigint"
                                    " ORDER BY position LIMIT $3::bigint",
                                {scope_id, P(after), P(int64_t{limit})}));
  std::vector<Source> out;
  for (int i = 0; i < r.size(); ++i) out.push_back(ReadSource(r, i));
  return out;
}

Result<std::vector<Source>> PgTxn::ListSourcesOfKind(const std::string& scope_id,
                                                     const std::string& kind, int64_t after,
                                                     int limit) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q(std::string("SELECT ") + kSourceColumns +
                    " FROM sources WHERE scope_id = $1 AND kind = $2 AND position > $3::bigint"
                    " ORDER BY position LIMIT $4::bigint",
                {scope_id, kind, P(after), P(int64_t{limit})}));
  std::vector<Source> out;
  for (int i = 0; i < r.size(); ++i) out.push_back(ReadSource(r, i));
  return out;
}

Result<int64_t> PgTxn::SourceHighWatermark(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q("SELECT coalesce(max(position), 0) FROM sources WHERE scope_id = $1", {scope_id}));
  return r.size() ? r.Int(0, 0) : 0;
}

Result<std::optional<Source>> PgTxn::FindSourceByIdempotencyKey(const std::string& scope_id,
                                                                const std::string& key) {
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT ") + kSourceColumns +
                                    " FROM sources WHERE scope_id = $1 AND idempotency_key = $2",
                                {scope_id, key}));
  return FirstSource(r);
}

Result<std::optional<Source>> PgTxn::FindSourceByPublicId(const std::string& scope_id,
                                                          const std::string& public_id) {
  PC_ASSIGN_OR_RETURN(std::optional<Source> by_key,
                      FindSourceByIdempotencyKey(scope_id, public_id));
  if (by_key) return by_key;
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT ") + kSourceColumns +
                                    " FROM sources WHERE scope_id = $1 AND source_id = $2"
                                    " AND idempotency_key IS NULL",
                                {scope_id, public_id}));
  return FirstSource(r);
}

Result<int64_t> PgTxn::GetCursor(const std::string& scope_id, const std::string& artifact_id,
                                 const std::string& consumer) {
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q("SELECT position FROM cursors WHERE scope_id = $1 AND artifact_id = $2"
                        " AND consumer = $3",
                        {scope_id, artifact_id, consumer}));
  return r.size() ? r.Int(0, 0) : 0;
}

Result<Source> PgTxn::AppendSource(Source source) {
  PC_ASSIGN_OR_RETURN(int64_t high, SourceHighWatermark(source.scope_id));
  source.position = high + 1;
  // A position (or idempotency key) taken concurrently is a unique violation: the write runs
  // again, from what the other committed.
  PC_RETURN_IF_ERROR(Send(
      std::string("INSERT INTO sources(") + kSourceColumns +
          ") VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9)",
      {source.source_id, source.scope_id, P(source.position), source.kind, source.purpose,
       source.content, source.metadata_json, source.idempotency_key, P(source.created_at_ms)}));
  PC_RETURN_IF_ERROR(IndexSourceText(source.scope_id, source.position, source.content));
  if (audit_trail().scope_id.empty()) audit_trail().scope_id = source.scope_id;
  audit_trail().AddSource(source.source_id);
  return source;
}

Status PgTxn::SetCursor(const std::string& scope_id, const std::string& artifact_id,
                        const std::string& consumer, int64_t position) {
  PC_RETURN_IF_ERROR(
      Q("INSERT INTO cursors(scope_id, artifact_id, consumer, position, updated_at)"
        " VALUES($1, $2, $3, $4, $5) ON CONFLICT (scope_id, artifact_id, consumer)"
        " DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at",
        {scope_id, artifact_id, consumer, P(position), P(NowMillis())})
          .status());
  if (audit_trail().scope_id.empty()) audit_trail().scope_id = scope_id;
  audit_trail().cursor = position;
  return Status::Ok();
}

Result<std::optional<std::string>> PgTxn::FindLastFlush(const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(Rows r, Q("SELECT record FROM last_flush WHERE scope_id = $1", {scope_id}));
  if (r.size() == 0) return std::optional<std::string>();
  return std::optional<std::string>(r.Text(0, 0));
}

Status PgTxn::PutLastFlush(const std::string& scope_id, int64_t at_ms, const std::string& record) {
  return Q("INSERT INTO last_flush(scope_id, at_ms, record) VALUES($1, $2, $3)"
           " ON CONFLICT(scope_id) DO UPDATE SET at_ms = excluded.at_ms, record = excluded.record",
           {scope_id, P(at_ms), record})
      .status();
}

}  // namespace pc::pg
