#include "store/postgres/pg_conn.h"

#include <libpq-fe.h>

#include <cstdlib>

namespace pc::pg {

std::string RedactUrl(std::string_view url) {
  std::string out(url);
  size_t scheme = out.find("://");
  if (scheme == std::string::npos) return out;
  size_t start = scheme + 3;
  size_t at = out.find('@', start);
  size_t slash = out.find('/', start);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return out;
  size_t colon = out.find(':', start);
  if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "****");
  return out;
}

Rows::Rows(pg_result* r) : r_(r) {}
Rows::~Rows() {
  if (r_) PQclear(r_);
}
Rows& Rows::operator=(Rows&& o) noexcept {
  if (this != &o) {
    if (r_) PQclear(r_);
    r_ = o.r_;
    o.r_ = nullptr;
  }
  return *this;
}
int Rows::size() const { return r_ ? PQntuples(r_) : 0; }
std::optional<std::string> Rows::Get(int row, int col) const {
  if (!r_ || PQgetisnull(r_, row, col)) return std::nullopt;
  return std::string(PQgetvalue(r_, row, col), static_cast<size_t>(PQgetlength(r_, row, col)));
}
std::string Rows::Text(int row, int col) const { return Get(row, col).value_or(""); }
int64_t Rows::Int(int row, int col) const {
  auto v = Get(row, col);
  return v ? std::strtoll(v->c_str(), nullptr, 10) : 0;
}
int64_t Rows::affected() const {
  const char* n = r_ ? PQcmdTuples(r_) : "";
  return *n ? std::strtoll(n, nullptr, 10) : 0;
}

Result<std::unique_ptr<Conn>> Conn::Open(const std::string& url) {
  pg_conn* c = PQconnectdb(url.c_str());
  if (!c) return Status(Code::kProviderUnavailable, "cannot connect to " + RedactUrl(url) + ": out of memory");
  if (PQstatus(c) != CONNECTION_OK) {
    std::string why = PQerrorMessage(c);
    PQfinish(c);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return Status(Code::kProviderUnavailable, "cannot connect to PostgreSQL at " + RedactUrl(url) + ": " + why);
  }
  std::unique_ptr<Conn> conn(new Conn(c));
  // UTC timestamps, UTF-8 text, and no notices on stderr.
  PC_RETURN_IF_ERROR(conn->Exec("SET TIME ZONE 'UTC'; SET client_encoding = 'UTF8'; SET client_min_messages = warning"));
  return conn;
}

Conn::~Conn() { PQfinish(c_); }

Status Conn::Error(const std::string& what, pg_result* r) {
  std::string message = r ? PQresultErrorMessage(r) : PQerrorMessage(c_);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  Status s = Internal("postgresql: " + what + ": " + message);
  if (state) s.With("sqlstate", std::string(state));
  if (first_failure_.empty()) first_failure_ = state ? state : "connection";
  return s;
}

Status Conn::Exec(const std::string& sql) {
  pg_result* r = PQexec(c_, sql.c_str());
  Rows rows(r);
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return Error(sql.substr(0, 60), r);
  return Status::Ok();
}

bool Conn::Idle() const { return PQstatus(c_) == CONNECTION_OK && PQtransactionStatus(c_) == PQTRANS_IDLE; }

Result<Rows> Conn::Query(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
  if (sql.rfind("SELECT ", 0) != 0) ++changes_;
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.size());
  for (const auto& p : params) {
    values.push_back(p ? p->c_str() : nullptr);
    lengths.push_back(p ? static_cast<int>(p->size()) : 0);
  }
  const int n = static_cast<int>(params.size());
  auto named = prepared_.find(sql);
  if (named == prepared_.end() && n > 0 && prepared_.size() < kMaxPrepared) {
    // Session-level, so a rollback keeps it; a failure here (an aborted transaction) is the
    // statement's own error.
    std::string name = "pc_" + std::to_string(prepared_.size());
    pg_result* p = PQprepare(c_, name.c_str(), sql.c_str(), n, nullptr);
    Rows made(p);
    if (!p || PQresultStatus(p) != PGRES_COMMAND_OK) return Error(sql.substr(0, 60), p);
    named = prepared_.emplace(sql, std::move(name)).first;
  }
  pg_result* r = named != prepared_.end()
                     ? PQexecPrepared(c_, named->second.c_str(), n, values.data(), lengths.data(), nullptr, 0)
                     : PQexecParams(c_, sql.c_str(), n, nullptr, values.data(), lengths.data(), nullptr, 0);
  Rows rows(r);
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return Error(sql.substr(0, 60), r);
  return rows;
}

}  // namespace pc::pg
