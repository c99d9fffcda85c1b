// API tokens and the audit log in SQLite (migration 8).
#include <limits>
#include <nlohmann/json.hpp>

#include "store/sqlite/db.h"
#include "store/sqlite/sqlite_txn.h"

namespace pc::sqlite {
namespace {

constexpr const char* kTokenColumns =
    "name, role, scope_patterns, secret_hash, created_by, created_at_ms, expires_at_ms, "
    "revoked_at_ms";

ApiToken ReadToken(const Stmt& s) {
  ApiToken t;
  t.name = s.Text(0);
  t.role = s.Text(1);
  // Patterns that cannot be read make the token useless, never unlimited: an empty list would
  // mean every scope.
  auto patterns = nlohmann::json::parse(s.Text(2), nullptr, /*allow_exceptions=*/false);
  bool readable = patterns.is_array();
  if (readable)
    for (const auto& p : patterns) {
      if (!p.is_string())
        readable = false;
      else
        t.scope_patterns.push_back(p.get<std::string>());
    }
  if (!readable) t.role = "none";
  t.secret_hash = s.Text(3);
  t.created_by = s.Text(4);
  t.created_at_ms = s.Int(5);
  if (!s.IsNull(6)) t.expires_at_ms = s.Int(6);
  if (!s.IsNull(7)) t.revoked_at_ms = s.Int(7);
  return t;
}

}  // namespace

Result<std::optional<ApiToken>> SqliteTxn::FindTokenByHash(const std::string& secret_hash) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT ") + kTokenColumns +
                                          " FROM api_tokens WHERE secret_hash = ?1"));
  s.Bind(1, secret_hash);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<ApiToken>();
  return std::optional<ApiToken>(ReadToken(s));
}

Result<std::vector<ApiToken>> SqliteTxn::ListTokens() {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT ") + kTokenColumns +
                                          " FROM api_tokens ORDER BY name, token_rowid"));
  std::vector<ApiToken> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back(ReadToken(s));
  }
}

Status SqliteTxn::CreateToken(const ApiToken& t) {
  {
    PC_ASSIGN_OR_RETURN(
        Stmt s, db_.Prepare("SELECT 1 FROM api_tokens WHERE name = ?1 AND revoked_at_ms IS NULL"));
    s.Bind(1, t.name);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row)
      return Status(Code::kNameTaken,
                    "a token named " + t.name + " exists; revoke it first or choose another name")
          .WithDetail("name", t.name);
  }
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare("INSERT INTO api_tokens(name, role, scope_patterns, secret_hash, created_by, "
                  "created_at_ms,"
                  " expires_at_ms, revoked_at_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL)"));
  s.Bind(1, t.name).Bind(2, t.role).Bind(3, nlohmann::json(t.scope_patterns).dump());
  s.Bind(4, t.secret_hash).Bind(5, t.created_by).Bind(6, t.created_at_ms);
  if (t.expires_at_ms)
    s.Bind(7, *t.expires_at_ms);
  else
    s.BindNull(7);
  PC_RETURN_IF_ERROR(s.Run());
  audit_trail().tokens.push_back(t.name);
  return Status::Ok();
}

Result<bool> SqliteTxn::RevokeToken(const std::string& name, int64_t at_ms) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "UPDATE api_tokens SET revoked_at_ms = ?2 WHERE name = ?1 AND revoked_at_ms IS NULL"));
  s.Bind(1, name).Bind(2, at_ms);
  PC_RETURN_IF_ERROR(s.Run());
  if (db_.changes() == 0) return false;
  audit_trail().tokens.push_back(name);
  return true;
}

Status SqliteTxn::AppendAudit(const AuditRecord& r, const std::string& artifact_id) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          "INSERT INTO audit_log(at_ms, actor, operation, scope_id, targets, result, request_id)"
          " VALUES(?1, ?2, ?3, CASE WHEN ?4 <> '' THEN ?4 ELSE"
          " COALESCE((SELECT scope_id FROM artifacts WHERE artifact_id = ?8), '') END, ?5, ?6, "
          "?7)"));
  s.Bind(1, r.at_ms).Bind(2, r.actor).Bind(3, r.operation).Bind(4, r.scope_id);
  s.Bind(5, r.targets_json).Bind(6, r.result).Bind(7, r.request_id).Bind(8, artifact_id);
  return s.Run();
}

Result<std::vector<AuditRecord>> SqliteTxn::ListAudit(const AuditQuery& q) {
  // Two statements, so a scope's rows come from its index (an OR on the bound value would scan).
  const std::string filters =
      " (?2 = '' OR actor = ?2) AND at_ms >= ?3 AND (?4 = 0 OR at_ms < ?4) AND seq < ?5"
      " ORDER BY seq DESC LIMIT ?6";
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare(std::string("SELECT seq, at_ms, actor, operation, scope_id, targets, "
                                      "result, request_id FROM audit_log") +
                          (q.scope_id.empty() ? " WHERE ?1 = '' AND" : " WHERE scope_id = ?1 AND") +
                          filters));
  s.Bind(1, q.scope_id).Bind(2, q.actor).Bind(3, q.since_ms).Bind(4, q.until_ms);
  s.Bind(5, q.before_seq > 0 ? q.before_seq : std::numeric_limits<int64_t>::max());
  s.Bind(6, static_cast<int64_t>(q.limit));
  std::vector<AuditRecord> out;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back(
        {s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Text(4), s.Text(5), s.Text(6), s.Text(7)});
  }
}

// Each step deletes among the oldest rows it may take, read in seq order (by the primary key, or
// refused rows by their partial index audit_log_denied), never past the newest row.
Result<int64_t> SqliteTxn::PruneAudit(const AuditPrune& p) {
  int64_t deleted = 0;
  auto step = [&](const std::string& sql, int64_t bound) -> Status {
    if (deleted >= p.limit) return Status::Ok();
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(sql));
    s.Bind(1, p.limit - deleted).Bind(2, bound);
    PC_RETURN_IF_ERROR(s.Run());
    deleted += db_.changes();
    return Status::Ok();
  };
  const std::string kNotNewest = " AND seq < (SELECT max(seq) FROM audit_log)";
  const std::string kDenied = "result IN ('denied', 'dropped')";
  if (p.before_ms > 0)
    PC_RETURN_IF_ERROR(
        step("DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log ORDER BY seq LIMIT ?1)"
             " AND at_ms < ?2" +
                 kNotNewest,
             p.before_ms));
  if (p.denied_before_ms > 0)
    PC_RETURN_IF_ERROR(step("DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE " +
                                kDenied + " ORDER BY seq LIMIT ?1) AND at_ms < ?2" + kNotNewest,
                            p.denied_before_ms));
  if (p.denied_keep > 0)
    PC_RETURN_IF_ERROR(
        step("DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE " + kDenied +
                 " AND seq <= (SELECT seq FROM audit_log WHERE " + kDenied +
                 " ORDER BY seq DESC LIMIT 1 OFFSET ?2) ORDER BY seq LIMIT ?1)" + kNotNewest,
             p.denied_keep));
  return deleted;
}

}  // namespace pc::sqlite
