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
int Rows::columns() const { return r_ ? PQnfields(r_) : 0; }
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
  if (!c)
    return Status(Code::kProviderUnavailable,
                  "cannot connect to " + RedactUrl(url) + ": out of memory");
  if (PQstatus(c) != CONNECTION_OK) {
    std::string why = PQerrorMessage(c);
    PQfinish(c);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return Status(Code::kProviderUnavailable,
                  "cannot connect to PostgreSQL at " + RedactUrl(url) + ": " + why);
  }
  std::unique_ptr<Conn> conn(new Conn(c));
  // UTC timestamps, UTF-8 text, and no notices on stderr.
  PC_RETURN_IF_ERROR(conn->Exec(
      "SET TIME ZONE 'UTC'; SET client_encoding = 'UTF8'; SET client_min_messages = warning"));
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
  // Whatever was queued is answered first; the command runs either way (a ROLLBACK must).
  Status queued = Flush();
  CountRoundTrip();
  pg_result* r = PQexec(c_, sql.c_str());
  Rows rows(r);
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    Status failed = Error(sql.substr(0, 60), r);
    return queued.ok() ? failed : queued;
  }
  return queued;
}

bool Conn::ToPrepare(const std::string& sql, int params) const {
  return params > 0 && prepared_.size() < kMaxPrepared && prepared_.count(sql) == 0;
}

Result<const std::string*> Conn::Prepared(const std::string& sql, int params) {
  auto named = prepared_.find(sql);
  if (named != prepared_.end()) return &named->second;
  if (!ToPrepare(sql, params)) return nullptr;
  // Session-level, so a rollback keeps it; a failure here (an aborted transaction) is the
  // statement's own error. Queued before the statement: one round trip makes and runs it.
  std::string name = "pc_" + std::to_string(prepared_.size());
  if (!PQsendPrepare(c_, name.c_str(), sql.c_str(), params, nullptr))
    return Error(sql.substr(0, 60), nullptr);
  sent_.push_back(Sent{sql, true});
  return &prepared_.emplace(sql, std::move(name)).first->second;
}

namespace {

// libpq's view of text parameters: a value pointer (null for NULL) and a length per parameter. The
// strings stay the caller's; libpq copies them before Query or Send returns.
class TextParams {
 public:
  explicit TextParams(const std::vector<std::optional<std::string>>& params) {
    values_.reserve(params.size());
    lengths_.reserve(params.size());
    for (const auto& p : params) {
      values_.push_back(p ? p->c_str() : nullptr);
      lengths_.push_back(p ? static_cast<int>(p->size()) : 0);
    }
  }
  int count() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }

 private:
  std::vector<const char*> values_;
  std::vector<int> lengths_;
};

// The rows of the one statement Collect was to keep.
Result<Rows> OneWanted(const Status& collected, std::vector<Rows>& rows) {
  if (!collected.ok()) return collected;
  if (rows.size() != 1) return Internal("postgresql: a pipelined statement went unanswered");
  return std::move(rows[0]);
}

}  // namespace

Result<Rows> Conn::Query(const std::string& sql,
                         const std::vector<std::optional<std::string>>& params) {
  CountChange(sql);
  if (PQpipelineStatus(c_) != PQ_PIPELINE_OFF || ToPrepare(sql, static_cast<int>(params.size()))) {
    // Statements are queued (Send), or this one is to be prepared first: it joins them, and one
    // round trip answers them all.
    PC_RETURN_IF_ERROR(EnterPipeline(sql));
    PC_RETURN_IF_ERROR(Queue(sql, params, true));
    std::vector<Rows> rows;
    const Status collected = Collect(&rows);
    return OneWanted(collected, rows);
  }
  const TextParams text(params);
  const int n = text.count();
  PC_ASSIGN_OR_RETURN(const std::string* name, Prepared(sql, n));
  CountRoundTrip();
  pg_result* r =
      name ? PQexecPrepared(c_, name->c_str(), n, text.values(), text.lengths(), nullptr, 0)
           : PQexecParams(c_, sql.c_str(), n, nullptr, text.values(), text.lengths(), nullptr, 0);
  Rows rows(r);
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return Error(sql.substr(0, 60), r);
  return rows;
}

Result<Rows> Conn::QueryPlannedOnce(const std::string& sql,
                                    const std::vector<std::optional<std::string>>& params) {
  PC_RETURN_IF_ERROR(EnterPipeline(sql));
  CountChange(sql);
  PC_RETURN_IF_ERROR(Queue("SET LOCAL plan_cache_mode = force_generic_plan", {}));
  PC_RETURN_IF_ERROR(Queue(sql, params, true));
  PC_RETURN_IF_ERROR(Queue("SET LOCAL plan_cache_mode TO DEFAULT", {}));
  std::vector<Rows> rows;
  const Status collected = Collect(&rows);
  return OneWanted(collected, rows);
}

Result<std::vector<Rows>> Conn::QueryEach(const std::vector<Statement>& statements) {
  std::vector<Rows> rows;
  if (statements.empty()) {
    PC_RETURN_IF_ERROR(Flush());
    return rows;
  }
  PC_RETURN_IF_ERROR(EnterPipeline(statements[0].sql));
  for (const Statement& s : statements) {
    CountChange(s.sql);
    PC_RETURN_IF_ERROR(Queue(s.sql, s.params, true));
  }
  PC_RETURN_IF_ERROR(Collect(&rows));
  return rows;
}

Status Conn::SendEnd(const std::string& sql) {
  PC_RETURN_IF_ERROR(EnterPipeline(sql));
  PC_RETURN_IF_ERROR(Queue(sql, {}));
  // Sent now, with a sync of its own: the server ends the transaction at once and, answered, the
  // session is idle (with a flush request alone it would show as running the COMMIT until the
  // connection's next use). Its answer waits in the socket for the next Collect.
  if (!PQpipelineSync(c_)) return Error(sql.substr(0, 60), nullptr);
  ++syncs_;
  return Status::Ok();
}

Status Conn::Send(const std::string& sql, const std::vector<std::optional<std::string>>& params,
                  Rows* into) {
  PC_RETURN_IF_ERROR(EnterPipeline(sql));
  ++changes_;
  return Queue(sql, params, false, into);
}

Status Conn::EnterPipeline(const std::string& sql) {
  if (PQpipelineStatus(c_) == PQ_PIPELINE_OFF && !PQenterPipelineMode(c_))
    return Error(sql.substr(0, 60), nullptr);
  return Status::Ok();
}

Status Conn::Queue(const std::string& sql, const std::vector<std::optional<std::string>>& params,
                   bool wanted, Rows* into) {
  const TextParams text(params);
  const int n = text.count();
  PC_ASSIGN_OR_RETURN(const std::string* name, Prepared(sql, n));
  // The values are copied into libpq's output buffer here: the caller's strings may go.
  const int queued =
      name ? PQsendQueryPrepared(c_, name->c_str(), n, text.values(), text.lengths(), nullptr, 0)
           : PQsendQueryParams(c_, sql.c_str(), n, nullptr, text.values(), text.lengths(), nullptr,
                               0);
  if (!queued) return Error(sql.substr(0, 60), nullptr);
  sent_.push_back(Sent{sql, false, wanted, into});
  return Status::Ok();
}

Status Conn::Flush() { return Collect(nullptr); }

Status Conn::Collect(std::vector<Rows>* out) {
  if (PQpipelineStatus(c_) == PQ_PIPELINE_OFF) return Status::Ok();
  CountRoundTrip();
  Status first = Status::Ok();
  if (!PQpipelineSync(c_))
    first = Error("a pipeline sync", nullptr);
  else
    ++syncs_;
  // Each statement's result then a null; after them all (and after a SendEnd), a sync's own.
  size_t at = 0;
  int nulls = 0;
  while (first.ok() || PQstatus(c_) == CONNECTION_OK) {
    pg_result* r = PQgetResult(c_);
    if (!r) {
      if (PQstatus(c_) != CONNECTION_OK || ++nulls > static_cast<int>(sent_.size()) + 1) break;
      continue;
    }
    Rows answer(r);
    const ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_PIPELINE_SYNC) {
      if (--syncs_ > 0) continue;  // a SendEnd's: the statements after it follow
      break;
    }
    const Sent* what = at < sent_.size() ? &sent_[at] : nullptr;
    ++at;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
      if (out && what && what->wanted) out->push_back(std::move(answer));  // the caller's
      if (what && what->into) *what->into = std::move(answer);
      continue;
    }
    if (what && what->preparation)
      prepared_.erase(what->sql);                // never made: prepared again next time
    if (st == PGRES_PIPELINE_ABORTED) continue;  // after the first error: not run
    Status failed = Error(what ? what->sql.substr(0, 60) : "a pipelined statement", r);
    if (first.ok()) first = failed;
  }
  sent_.clear();
  syncs_ = 0;
  if (!PQexitPipelineMode(c_) && first.ok()) first = Error("leaving the pipeline", nullptr);
  return first;
}

bool Conn::Idle() const {
  return PQstatus(c_) == CONNECTION_OK && PQtransactionStatus(c_) == PQTRANS_IDLE;
}

}  // namespace pc::pg
