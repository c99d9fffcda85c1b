#include "store/postgres/pg_store.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <thread>

#include "ops/metrics.h"
#include "store/postgres/pg_schema.h"
#include "store/postgres/pg_txn.h"
#include "store/store_rows.h"

namespace pc::pg {
namespace {

std::string SqlState(const Status& s) {
  for (const Detail& d : s.details())
    if (d.key == "sqlstate")
      if (const auto* v = std::get_if<std::string>(&d.value)) return *v;
  return "";
}

// Lost a race with another transaction: run it again from a new snapshot.
bool Retryable(const std::string& state) { return state == "40001" || state == "40P01" || state == "23505"; }

// A connection that failed this way is not reused.
bool Broken(const Status& s) {
  const std::string state = SqlState(s);
  return state.empty() ? s.code() == Code::kInternal && s.message().find("postgresql:") != std::string::npos
                       : state.rfind("08", 0) == 0 || state.rfind("57", 0) == 0;
}

}  // namespace

Result<std::unique_ptr<PgStore>> PgStore::Open(const PgOptions& options) {
  std::unique_ptr<PgStore> store(new PgStore(options));
  if (const char* replay = std::getenv("POWERCONTEXT_TEST_REPLAY_WRITES"); replay && std::strcmp(replay, "1") == 0)
    store->options_.replay_writes = true;
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, store->Connect());
  PC_RETURN_IF_ERROR(Migrate(*conn).status());
  store->open_ = 1;
  store->idle_.push_back(std::move(conn));
  return store;
}

PgStore::~PgStore() = default;

uint64_t PgStore::write_retries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return retries_;
}

Result<std::unique_ptr<Conn>> PgStore::Connect() {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, Conn::Open(options_.url));
  if (options_.relaxed_commit) PC_RETURN_IF_ERROR(conn->Exec("SET synchronous_commit = off"));
  return conn;
}

Result<std::unique_ptr<Conn>> PgStore::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!idle_cv_.wait_for(lock, std::chrono::milliseconds(options_.acquire_timeout_ms),
                         [&] { return !idle_.empty() || open_ < options_.max_connections; }))
    return Unavailable("all " + std::to_string(options_.max_connections) +
                       " connections to PostgreSQL stayed busy for " + std::to_string(options_.acquire_timeout_ms) +
                       " ms; nothing was done");
  if (!idle_.empty()) {
    auto conn = std::move(idle_.back());
    idle_.pop_back();
    return conn;
  }
  ++open_;
  lock.unlock();
  auto conn = Connect();
  if (!conn.ok()) {
    lock.lock();
    --open_;
    idle_cv_.notify_one();
  }
  return conn;
}

Result<std::string> PgStore::SessionSetting(const std::string& name) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, Acquire());
  auto rows = conn->Query("SELECT current_setting($1)", {name});
  const bool healthy = rows.ok();
  std::string value = healthy && rows->size() == 1 ? rows->Text(0, 0) : "";
  Release(std::move(conn), healthy);
  if (!rows.ok()) return rows.status();
  return value;
}

void PgStore::Release(std::unique_ptr<Conn> conn, bool healthy) {
  std::lock_guard<std::mutex> lock(mu_);
  if (healthy) idle_.push_back(std::move(conn));
  else --open_;
  idle_cv_.notify_one();
}

Status PgStore::Read(const std::function<Status(ReadTxn&)>& fn) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, Acquire());
  Status status = conn->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
  bool healthy = status.ok();
  if (status.ok()) {
    PgTxn txn(*conn, false);
    status = GuardedCallback<ReadTxn>(fn, txn);
    Status end = conn->Exec(status.ok() ? "COMMIT" : "ROLLBACK");
    healthy = end.ok();
    if (status.ok()) status = end;
  }
  Release(std::move(conn), healthy);
  return status;
}

Status PgStore::Write(const std::function<Status(WriteTxn&)>& write) {
  const std::function<Status(WriteTxn&)> fn = Audited(write);  // its audit row, same transaction
  std::mt19937 jitter(std::random_device{}());
  Status status;
  for (int attempt = 1;; ++attempt) {
    PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, Acquire());
    status = Status::Ok();
    std::string race;  // the SQLSTATE of a lost race, however the callback reported it
    for (int pass = options_.replay_writes ? 0 : 1; pass < 2 && status.ok(); ++pass) {
      conn->ClearFailure();
      status = conn->Exec("BEGIN ISOLATION LEVEL READ COMMITTED");
      if (!status.ok()) break;
      PgTxn txn(*conn, true);
      status = GuardedCallback<WriteTxn>(fn, txn);
      if (status.ok() && pass == 0) {
        status = conn->Exec("ROLLBACK");  // the rehearsal: the callback runs again below
        continue;
      }
      if (status.ok()) {
        const auto started = std::chrono::steady_clock::now();
        status = conn->Exec("COMMIT");  // synchronous_commit decides what an acknowledgement means
        ops::metrics().ObserveCommitSeconds(ops::SecondsSince(started));
        if (status.ok()) ops::metrics().ObserveCommitGroup(1);  // one write per commit here
      }
      if (!status.ok()) {
        race = Retryable(SqlState(status)) ? SqlState(status) : Retryable(conn->first_failure()) ? conn->first_failure() : "";
        (void)conn->Exec("ROLLBACK");
      }
    }
    Release(std::move(conn), status.ok() || !race.empty() || !Broken(status));
    if (race.empty() || attempt >= options_.max_write_attempts) break;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++retries_;
    }
    ops::metrics().CountCommitRerun();
    // Back off a little, more after each loss, so racing writers spread out.
    const int ceiling_us = std::min(20000, 200 << std::min(attempt, 6));
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, ceiling_us)(jitter)));
  }
  // Contention, not a fault: nothing was written, and a retry a moment later usually passes.
  if (!status.ok() && Retryable(SqlState(status)))
    return Unavailable("the write lost " + std::to_string(options_.max_write_attempts) +
                       " races with other writers; nothing was written: " + status.message());
  return status;
}

std::string PgStore::TokensStamp() {
  auto conn = Acquire();
  if (!conn.ok()) return "unavailable";
  auto rows = (*conn)->Query("SELECT value FROM store_epochs WHERE name = 'tokens'");
  Release(std::move(conn).value(), rows.ok());
  return rows.ok() && rows->size() == 1 ? "epoch-" + rows->Text(0, 0) : "unavailable";
}

}  // namespace pc::pg

namespace pc::pg {

bool PgStore::RunExclusive(const std::string& name, const std::function<void()>& job) {
  // The lock is the connection's (session level): held through the job, on a connection taken out
  // of the pool for it; a server that dies drops its connection, and so the lock.
  auto acquired = Acquire();
  if (!acquired.ok()) return false;
  const std::string key = "powercontext job " + name;
  // Whatever the job does, throwing included, the lock is given up and the connection goes back
  // to the pool (a connection lost here was a pool slot lost for good).
  struct Holder {
    PgStore& store;
    std::unique_ptr<Conn> conn;
    const std::string& key;
    bool locked = false;
    ~Holder() {
      if (!conn) return;
      bool healthy = true;
      if (locked) healthy = conn->Query("SELECT pg_advisory_unlock(hashtext($1))", {key}).ok();
      store.Release(std::move(conn), healthy);
    }
  } holder{*this, std::move(acquired).value(), key};
  auto got = holder.conn->Query("SELECT pg_try_advisory_lock(hashtext($1))", {key});
  holder.locked = got.ok() && got->Text(0, 0) == "t";
  if (!got.ok()) Release(std::move(holder.conn), false);  // not a connection to keep
  if (holder.locked) job();
  return holder.locked;
}

}  // namespace pc::pg
