// API tokens and the audit log in PostgreSQL (migration 2); a token change also moves the tokens'
// epoch (store_epochs), in the same transaction, which is how every server learns of it.
#include <limits>
#include <nlohmann/json.hpp>

#include "store/postgres/pg_txn.h"

namespace pc::pg {
namespace {

constexpr const char* kTokenColumns =
    "name, role, scope_patterns, secret_hash, created_by, created_at_ms, expires_at_ms, "
    "revoked_at_ms";

ApiToken ReadToken(const Rows& r, int row) {
  ApiToken t;
  t.name = r.Text(row, 0);
  t.role = r.Text(row, 1);
  // Patterns that cannot be read make the token useless, never unlimited: an empty list would
  // mean every scope.
  auto patterns = nlohmann::json::parse(r.Text(row, 2), nullptr, /*allow_exceptions=*/false);
  bool readable = patterns.is_array();
  if (readable)
    for (const auto& p : patterns) {
      if (!p.is_string())
        readable = false;
      else
        t.scope_patterns.push_back(p.get<std::string>());
    }
  if (!readable) t.role = "none";
  t.secret_hash = r.Text(row, 3);
  t.created_by = r.Text(row, 4);
  t.created_at_ms = r.Int(row, 5);
  if (r.Get(row, 6)) t.expires_at_ms = r.Int(row, 6);
  if (r.Get(row, 7)) t.revoked_at_ms = r.Int(row, 7);
  return t;
}

Status NameTaken(const std::string& name) {
  return Status(Code::kNameTaken,
                "a token named " + name + " exists; revoke it first or choose another name")
      .WithDetail("name", name);
}

}  // namespace

Result<std::optional<ApiToken>> PgTxn::FindTokenByHash(const std::string& secret_hash) {
  PC_ASSIGN_OR_RETURN(
      Rows r, Q(std::string("SELECT ") + kTokenColumns + " FROM api_tokens WHERE secret_hash = $1",
                {secret_hash}));
  if (r.size() == 0) return std::optional<ApiToken>();
  return std::optional<ApiToken>(ReadToken(r, 0));
}

Result<std::vector<ApiToken>> PgTxn::ListTokens() {
  PC_ASSIGN_OR_RETURN(Rows r, Q(std::string("SELECT ") + kTokenColumns +
                                " FROM api_tokens ORDER BY name COLLATE \"C\", token_id"));
  std::vector<ApiToken> out;
  for (int i = 0; i < r.size(); ++i) out.push_back(ReadToken(r, i));
  return out;
}

Status PgTxn::CreateToken(const ApiToken& t) {
  {
    PC_ASSIGN_OR_RETURN(
        Rows r, Q("SELECT 1 FROM api_tokens WHERE name = $1 AND revoked_at_ms IS NULL", {t.name}));
    if (r.size() > 0) return NameTaken(t.name);
  }
  // A live name taken concurrently is a serialization failure: the write runs again and finds it.
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q("INSERT INTO api_tokens(name, role, scope_patterns, secret_hash, created_by, created_at_ms,"
        " expires_at_ms, revoked_at_ms) VALUES($1, $2, $3, $4, $5, $6, $7, NULL)",
        {t.name, t.role, nlohmann::json(t.scope_patterns).dump(), t.secret_hash, t.created_by,
         P(t.created_at_ms),
         t.expires_at_ms ? std::optional<std::string>(P(*t.expires_at_ms)) : std::nullopt}));
  // A live token of that name created concurrently is a unique violation: the write runs again
  // and finds it.
  PC_RETURN_IF_ERROR(Q("UPDATE store_epochs SET value = value + 1 WHERE name = 'tokens'").status());
  audit_trail().tokens.push_back(t.name);
  return Status::Ok();
}

Result<bool> PgTxn::RevokeToken(const std::string& name, int64_t at_ms) {
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q("UPDATE api_tokens SET revoked_at_ms = $2 WHERE name = $1 AND revoked_at_ms IS NULL",
        {name, P(at_ms)}));
  if (r.affected() == 0) return false;
  PC_RETURN_IF_ERROR(Q("UPDATE store_epochs SET value = value + 1 WHERE name = 'tokens'").status());
  audit_trail().tokens.push_back(name);
  return true;
}

Status PgTxn::AppendAudit(const AuditRecord& r, const std::string& artifact_id) {
  return Send(
      "INSERT INTO audit_log(at_ms, actor, operation, scope_id, targets, result, request_id)"
      " VALUES($1, $2, $3, CASE WHEN $4::text <> '' THEN $4::text ELSE"
      " coalesce((SELECT scope_id FROM artifacts WHERE artifact_id = $8), '') END, $5, $6, $7)",
      {P(r.at_ms), r.actor, r.operation, r.scope_id, r.targets_json, r.result, r.request_id,
       artifact_id});
}

Result<std::vector<AuditRecord>> PgTxn::ListAudit(const AuditQuery& q) {
  // Two statements, so a scope's rows come from its index (an OR on the bound value would scan).
  const std::string filters =
      " ($2::text = '' OR actor = $2::text) AND at_ms >= $3::bigint AND ($4::bigint = 0 OR at_ms < "
      "$4::bigint)"
      " AND seq < $5::bigint ORDER BY seq DESC LIMIT $6::bigint";
  PC_ASSIGN_OR_RETURN(
      Rows rows,
      Q(std::string("SELECT seq, at_ms, actor, operation, scope_id, targets, result, request_id "
                    "FROM audit_log") +
            (q.scope_id.empty() ? " WHERE $1::text = '' AND" : " WHERE scope_id = $1 AND") +
            filters,
        {q.scope_id, q.actor, P(q.since_ms), P(q.until_ms),
         P(q.before_seq > 0 ? q.before_seq : std::numeric_limits<int64_t>::max()),
         P(static_cast<int64_t>(q.limit))}));
  std::vector<AuditRecord> out;
  for (int i = 0; i < rows.size(); ++i)
    out.push_back({rows.Int(i, 0), rows.Int(i, 1), rows.Text(i, 2), rows.Text(i, 3),
                   rows.Text(i, 4), rows.Text(i, 5), rows.Text(i, 6), rows.Text(i, 7)});
  return out;
}

// As SQLite's (sqlite_security.cc): the oldest rows first, refused rows by their partial index.
Result<int64_t> PgTxn::PruneAudit(const AuditPrune& p) {
  int64_t deleted = 0;
  auto step = [&](const std::string& sql, int64_t bound) -> Status {
    if (deleted >= p.limit) return Status::Ok();
    PC_ASSIGN_OR_RETURN(Rows rows,
                        Q("WITH gone AS (" + sql + " RETURNING 1) SELECT count(*) FROM gone",
                          {P(p.limit - deleted), P(bound)}));
    deleted += rows.Int(0, 0);
    return Status::Ok();
  };
  const std::string kNotNewest = " AND seq < (SELECT max(seq) FROM audit_log)";
  const std::string kDenied = "result IN ('denied', 'dropped')";
  if (p.before_ms > 0)
    PC_RETURN_IF_ERROR(
        step("DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log ORDER BY seq LIMIT $1)"
             " AND at_ms < $2" +
                 kNotNewest,
             p.before_ms));
  if (p.denied_before_ms > 0)
    PC_RETURN_IF_ERROR(step("DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE " +
                                kDenied + " ORDER BY seq LIMIT $1) AND at_ms < $2" + kNotNewest,
                            p.denied_before_ms));
  if (p.denied_keep > 0)
    PC_RETURN_IF_ERROR(
        step("DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE " + kDenied +
                 " AND seq <= (SELECT seq FROM audit_log WHERE " + kDenied +
                 " ORDER BY seq DESC LIMIT 1 OFFSET $2) ORDER BY seq LIMIT $1)" + kNotNewest,
             p.denied_keep));
  return deleted;
}

}  // namespace pc::pg
