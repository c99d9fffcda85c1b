// One PostgreSQL connection (libpq), for the PostgreSQL store (issue 15). Statements take their
// values as parameters (never spliced into SQL); errors become a Status naming what failed, with
// PostgreSQL's SQLSTATE, and never the password of the connection URL.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

struct pg_conn;
struct pg_result;

namespace pc::pg {

// The URL as it may be shown: any password replaced by "****".
std::string RedactUrl(std::string_view url);

// A statement's answer: rows of text values (nullopt: SQL NULL).
class Rows {
 public:
  Rows() = default;
  explicit Rows(pg_result* r);
  ~Rows();
  Rows(Rows&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Rows& operator=(Rows&& o) noexcept;
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;

  int size() const;
  int columns() const;
  std::optional<std::string> Get(int row, int col) const;
  std::string Text(int row, int col) const;  // "" for NULL
  int64_t Int(int row, int col) const;       // 0 for NULL
  // Rows an INSERT, UPDATE or DELETE changed.
  int64_t affected() const;

 private:
  pg_result* r_ = nullptr;
};

class Conn {
 public:
  // Connects to `url` (postgresql://user@host:port/db; the password from PGPASSWORD or the
  // password file, as libpq reads them). Unavailable-style errors name the redacted URL.
  static Result<std::unique_ptr<Conn>> Open(const std::string& url);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // One statement (or several, without parameters) whose rows are not wanted.
  Status Exec(const std::string& sql);
  // One statement with text parameters ($1, $2 …; nullopt is NULL). A statement with parameters
  // is prepared on this session the first time it is seen (up to kMaxPrepared of them) and then
  // only bound and executed: most of a write's cost in the database was parsing and planning.
  // After statements queued with Send(), it goes with them: one round trip answers them all, the
  // first error among them (this one not run then) or this one's rows.
  Result<Rows> Query(const std::string& sql,
                     const std::vector<std::optional<std::string>>& params = {});
  // As Query(), run on the statement's generic plan (made once per session) where PostgreSQL
  // would plan it anew for each call's values: for a statement whose plan has one shape whatever
  // its values, but whose generic plan PostgreSQL estimates dearer (an array parameter's length is
  // unknown to it, so it never settles on it). Inside a transaction (the setting is SET LOCAL,
  // and back as it was after the statement); the settings travel with it, no round trip more.
  Result<Rows> QueryPlannedOnce(const std::string& sql,
                                const std::vector<std::optional<std::string>>& params);

  // A statement whose rows are not wanted, sent without waiting for its answer (libpq's pipeline
  // mode): the statements sent so go to the server together, in order, at the next Flush() or
  // Query() (in the same round trip as that query) or Exec() (one round trip before it), which
  // answers the first of their errors. So a write's inserts cost one round trip, not one each.
  // Prepared as Query() prepares. With `into`, the statement's rows (a RETURNING's) are put there
  // when it is answered: `*into` must outlive that answer.
  Status Send(const std::string& sql, const std::vector<std::optional<std::string>>& params,
              Rows* into = nullptr);
  // Waits for the statements Send() queued; the first error among them, or OK.
  Status Flush();
  // Several statements in one round trip (after any Send() queued: their first error, or these
  // statements' rows in order). Prepared as Query() prepares.
  struct Statement {
    std::string sql;
    std::vector<std::optional<std::string>> params;
  };
  Result<std::vector<Rows>> QueryEach(const std::vector<Statement>& statements);
  // A statement without parameters or rows (a read-only transaction's COMMIT) sent to the server
  // to run now, its answer read with this connection's next round trip rather than waited for:
  // its failure (one that can only be the connection's) is the next use's first error.
  Status SendEnd(const std::string& sql);

  // Every wait for the server's answer (a round trip) this connection made is counted in `*to`.
  void CountRoundTripsIn(std::atomic<uint64_t>* to) { round_trips_ = to; }

  // The SQLSTATE of the first statement that failed since the last ClearFailure() ("" if none):
  // a transaction that lost a race is known by it even when the caller reworded the error.
  const std::string& first_failure() const { return first_failure_; }
  void ClearFailure() { first_failure_.clear(); }
  // Statements sent with Query() that may have changed rows (all but SELECTs), since the session
  // began: a write that failed without sending one left nothing behind.
  uint64_t changes() const { return changes_; }
  // Connected and outside any transaction: fit to go back to the pool.
  bool Idle() const;

 private:
  explicit Conn(pg_conn* c) : c_(c) {}
  Status Error(const std::string& what, pg_result* r);
  // Whether `sql` is yet to be prepared on this session (it has parameters; kMaxPrepared not
  // reached).
  bool ToPrepare(const std::string& sql, int params) const;
  // The named prepared statement for `sql` (its preparation queued first, in pipeline mode, when
  // ToPrepare), or null when it is not to be prepared.
  Result<const std::string*> Prepared(const std::string& sql, int params);
  // Enters libpq's pipeline mode unless in it already (`sql`: what the error names).
  Status EnterPipeline(const std::string& sql);
  // Sends a statement into the pipeline (Send without entering it or counting a change).
  Status Queue(const std::string& sql, const std::vector<std::optional<std::string>>& params,
               bool wanted = false, Rows* into = nullptr);
  // Syncs the pipeline and reads every answer: the first error; the rows of the statements queued
  // `wanted`, in order, into `out` when given.
  Status Collect(std::vector<Rows>* out);
  // A statement that may change rows (all but SELECTs) counts in changes().
  void CountChange(const std::string& sql) {
    if (sql.rfind("SELECT ", 0) != 0) ++changes_;
  }
  void CountRoundTrip() {
    if (round_trips_) round_trips_->fetch_add(1, std::memory_order_relaxed);
  }
  static constexpr size_t kMaxPrepared = 512;
  pg_conn* c_;
  std::string first_failure_;
  uint64_t changes_ = 0;
  std::atomic<uint64_t>* round_trips_ = nullptr;
  int syncs_ = 0;  // pipeline syncs sent whose answers were not read yet
  struct Sent {
    std::string sql;  // what it was (for the error), and for a preparation the key to forget
    bool preparation = false;
    bool wanted = false;   // its rows go to Collect's caller
    Rows* into = nullptr;  // or there (Send's)
  };
  std::vector<Sent> sent_;  // queued in pipeline mode, not yet answered
  std::unordered_map<std::string, std::string> prepared_;  // SQL → its statement name here
};

}  // namespace pc::pg
