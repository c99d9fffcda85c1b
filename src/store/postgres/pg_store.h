// The PostgreSQL store (issue 15): several PowerContext servers on one database.
//
// Every Read runs in one REPEATABLE READ, READ ONLY transaction: one snapshot for the callback.
// Every Write runs in one READ COMMITTED transaction on a pooled connection, and the artifacts it
// looks up (a scope's memory, its handoff) are locked FOR UPDATE until it commits: writes of one
// scope take turns across every server, and each reads what the one before committed — SQLite's
// one-writer-at-a-time, per scope instead of per database. Writes of different scopes run in
// parallel. What locking cannot order (two servers creating one scope key, one source position,
// one token name; a deadlock) fails with a unique violation or a deadlock error, is rolled back
// and runs again, where the service finds what the other committed. So the write contract of
// store.h (a callback may run more than once) is what makes several servers safe.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/postgres/pg_conn.h"
#include "store/store.h"

namespace pc::pg {

struct PgOptions {
  std::string url;         // postgresql://user@host:port/db (password: PGPASSWORD / ~/.pgpass)
  int max_connections = 16;  // per server
  // --durability normal: this server's commits return before the WAL flush
  // (synchronous_commit = off for its sessions; a crash of the database may lose the last
  // fraction of a second of acknowledged writes, never consistency). Otherwise the database's
  // own synchronous_commit setting holds (default on).
  bool relaxed_commit = false;
  // How often a write that lost a race runs again before the caller gets an error (Unavailable,
  // 503 with Retry-After: nothing was written, and the contention usually passes).
  int max_write_attempts = 64;
  // How long a request waits for a pooled connection when all max_connections are in use (a
  // stalled or overloaded database) before it is answered Unavailable (503, Retry-After), rather
  // than holding its HTTP worker indefinitely.
  static constexpr int kDefaultAcquireTimeoutMs = 5000;
  int acquire_timeout_ms = kDefaultAcquireTimeoutMs;
  // Test only (as SqliteOptions::replay_writes): every write callback runs twice, the first run
  // rolled back. Also on with POWERCONTEXT_TEST_REPLAY_WRITES=1.
  bool replay_writes = false;
};

class PgStore final : public Store {
 public:
  // Connects, migrates the schema (store/postgres/pg_schema.h) and keeps the connection for reuse.
  static Result<std::unique_ptr<PgStore>> Open(const PgOptions& options);
  ~PgStore() override;

  Status Read(const std::function<Status(ReadTxn&)>& fn) override;
  Status Write(const std::function<Status(WriteTxn&)>& fn) override;
  // The tokens epoch (store_epochs), read from the database: any server's token change is seen
  // by the next request on every server.
  std::string TokensStamp() override;
  bool RunExclusive(const std::string& name, const std::function<void()>& job) override;

  // A run-time setting as this server's sessions see it (SHOW name), e.g. synchronous_commit.
  Result<std::string> SessionSetting(const std::string& name);

  // Writes that ran again after losing a race, since start (for tests and the benchmarks).
  uint64_t write_retries() const;

 private:
  explicit PgStore(PgOptions options) : options_(std::move(options)) {}
  Result<std::unique_ptr<Conn>> Connect();  // a new session with this server's settings
  // A pooled connection, or a new one below max_connections; Unavailable after acquire_timeout_ms.
  Result<std::unique_ptr<Conn>> Acquire();
  void Release(std::unique_ptr<Conn> conn, bool healthy);

  PgOptions options_;
  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  std::vector<std::unique_ptr<Conn>> idle_;
  int open_ = 0;  // connections handed out or idle
  uint64_t retries_ = 0;
};

}  // namespace pc::pg
