// The PostgreSQL store (issue 15): several PowerContext servers on one database.
//
// Every Read runs in one REPEATABLE READ, READ ONLY transaction: one snapshot for the callback;
// its COMMIT is sent without waiting for the answer (Conn::SendEnd).
// Every Write runs in one READ COMMITTED transaction on a pooled connection, and the artifacts it
// looks up (a scope's memory, its handoff) are locked FOR UPDATE until it commits: writes of one
// scope take turns across every server, and each reads what the one before committed — SQLite's
// one-writer-at-a-time, per scope instead of per database. Writes of different scopes run in
// parallel. What locking cannot order (two servers creating one scope key, one source position,
// one token name; a deadlock) fails with a unique violation or a deadlock error, is rolled back
// and runs again, where the service finds what the other committed. So the write contract of
// store.h (a callback may run more than once) is what makes several servers safe.
//
// Group commit: a write that names its scope (WriteFor's group) queues on one of kSharedLanes
// lanes, chosen by the scope's name; while one group of a lane runs, the writes that arrive queue
// up, and the next of them to lead runs up to kMaxPgGroupWrites of them in ONE transaction, in
// arrival order (each sees the ones before it), and commits
// once: one WAL flush for all of them, one turn of each scope's row lock. Writes that queue while
// the group runs join it before its COMMIT. Each writer returns after that COMMIT with its own
// status. A write that fails having changed nothing simply drops out; one that fails after
// changing rows (or on a failed statement, which aborts PostgreSQL's transaction) makes the group
// run again with a savepoint per write, so it fails alone, as on SQLite (sqlite_store.h). A write
// that lost a race there (a unique violation, a deadlock) is rolled back to its savepoint and runs
// again after the others committed.
//
// A group of a shared lane holds several scopes' row locks, so it takes every row lock NOWAIT
// (PgTxn::LockWithoutWaiting): it never waits for a lock while holding another, and two servers'
// groups can never wait for each other in a cycle (a deadlock, which PostgreSQL breaks only
// after deadlock_timeout) nor stall every scope's writes behind one scope another server holds. A
// write whose scope's row is locked elsewhere (55P03) drops out and runs again on that scope's
// own lane, where its groups wait for the row as a single scope's always did; the scope's next
// writes queue there too, in order, while it has writers and for a second after a write last
// found the row held (kOwnLaneKeptFor, pg_store.cc: while another server writes the scope, each of
// its writes would otherwise run twice). A write that overtook a moved one was concurrent with it:
// either order is one the writers could have seen. With one server a row is held elsewhere only
// by a write of its own that names no scope (Write). 16 clients writing 16 scopes through one
// server: a fifth less database CPU per remember and 15% more remembers a second than with a
// lane per scope (docs/benchmarks.md). A lane runs one group at a time, so a long write would hold
// up every scope of its lane: a batch writes alone (Write; store.h).
//
// The group's COMMIT does not wait for its WAL flush (synchronous_commit off for that
// transaction), so the scope's row lock passes to the next group at once; its writers are
// answered after a flush that covers it (AnswerWhenDurable: a transaction of this server's that
// commits synchronously, which flushes the WAL up to its own commit record). What a writer is told
// is unchanged: an acknowledged write is on disk. As on SQLite, a commit is visible to reads for
// the moment before that flush.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/covering_sync.h"
#include "store/postgres/pg_conn.h"
#include "store/store.h"

namespace pc::pg {

class GateLists;

// Writes one transaction commits at most; below PostgreSQL's 64 cached subtransactions per
// backend, so the savepoints of a rerun never overflow to pg_subtrans.
inline constexpr size_t kMaxPgGroupWrites = 48;
// Lanes shared by the scopes (a scope's by the hash of its name), each running one group at a
// time (above). Two, measured against one and three or four (docs/benchmarks.md): one group's
// statements run while the other's wait for their answers.
inline constexpr size_t kSharedLanes = 2;

struct PgOptions {
  std::string url;           // postgresql://user@host:port/db (password: PGPASSWORD / ~/.pgpass)
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
  // Test only: called before the flush that answers a group's writers (PgStore's group commit,
  // above), with the number of commits it covers.
  std::function<void(uint64_t covers)> before_flush;
  // Test only: the next this many of those flushes fail, as if the database had not answered.
  int fail_flushes = 0;
};

class PgStore final : public Store {
 public:
  // Connects, migrates the schema (store/postgres/pg_schema.h) and keeps the connection for reuse.
  static Result<std::unique_ptr<PgStore>> Open(const PgOptions& options);
  ~PgStore() override;

  Status Read(const std::function<Status(ReadTxn&)>& fn) override;
  // A write alone, in its own transaction (it names no group).
  Status Write(const Actor& actor, const std::function<Status(WriteTxn&)>& fn) override;
  // Group-committed with the concurrent writes of `group` (above); thread-safe.
  Status WriteFor(const std::string& group, const Actor& actor,
                  const std::function<Status(WriteTxn&)>& fn) override;
  bool ReadsBeforeWritesPay() const override { return true; }
  // The tokens epoch (store_epochs), read from the database: any server's token change is seen
  // by the next request on every server.
  std::string TokensStamp() override;
  bool RunExclusive(const std::string& name, const std::function<void()>& job) override;

  // A run-time setting as this server's sessions see it (SHOW name), e.g. synchronous_commit.
  Result<std::string> SessionSetting(const std::string& name);

  // Writes that ran again after losing a race, since start (for tests and the benchmarks).
  uint64_t write_retries() const;

  // Waits for PostgreSQL's answer (round trips) on all of this server's connections, since start
  // (for tests and the benchmarks: on a small machine a remember costs its round trips).
  uint64_t round_trips() const { return round_trips_.load(std::memory_order_relaxed); }

  struct GroupStats {
    uint64_t writes = 0;   // writes answered
    uint64_t commits = 0;  // transactions they committed in (or tried to)
    uint64_t reruns = 0;   // groups run again with a savepoint per write
    uint64_t moved = 0;    // writes whose scope was locked elsewhere: run again on its own lane
  };
  GroupStats group_stats() const;

 private:
  struct PendingWrite;
  struct Lane;
  enum class Pass { kFast, kSavepoints, kRehearsal };
  enum class Outcome { kDone, kRerun };
  Status Submit(const std::string& group, const Actor& actor,
                const std::function<Status(WriteTxn&)>& write);
  // Queues `me` on `lane` (under lanes_mu_, held by `lock`) until a group has answered it,
  // leading groups of the lane meanwhile when its turn comes.
  void RunQueued(Lane& lane, const std::string& group, PendingWrite& me,
                 std::unique_lock<std::mutex>& lock);
  Lane& OwnLane(const std::string& group);  // under lanes_mu_
  Status Answer(const PendingWrite& me) const;
  // Runs `group` to its answers: passes, then what lost a race again (up to max_write_attempts).
  // With `lane`, writes that queued on it meanwhile join the first pass (appended to `group`).
  // Returns the last commit it made (counted by flush_), 0 if none; and in *kept the last
  // attempt's connection, if healthy, for the flush that answers the group.
  uint64_t RunGroup(std::vector<PendingWrite*>& group, Lane* lane, std::unique_ptr<Conn>* kept);
  // One attempt on one connection: the passes of `group` in one transaction, committed.
  // `nowait`: a shared lane's group, whose writes lock NOWAIT (PgTxn::LockWithoutWaiting).
  uint64_t RunAttempt(Conn& conn, std::vector<PendingWrite*>& group, Lane* lane, bool nowait);
  Outcome RunPass(Conn& conn, std::vector<PendingWrite*>& group, Pass pass, Lane* lane, bool nowait,
                  uint64_t* committed);
  // Waits for a flush covering `commit`, then releases `conn` (the group's, or null).
  void AnswerWhenDurable(std::vector<PendingWrite*>& group, uint64_t commit,
                         std::unique_ptr<Conn> conn);
  void JoinQueued(std::vector<PendingWrite*>& group, Lane* lane);
  bool NoneQueued(Lane* lane);  // no writer waits on `lane` (none: a write alone)
  static void FailAll(Conn& conn, std::vector<PendingWrite*>& group, const Status& s, bool only_ok);

  explicit PgStore(PgOptions options);
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
  GroupStats stats_;
  CoveringSync flush_;    // counts group commits; runs the flushes that answer them, one at a time
  int fail_flushes_ = 0;  // in a flush: PgOptions::fail_flushes
  std::mutex lanes_mu_;
  std::vector<std::unique_ptr<Lane>> shared_lanes_;  // kSharedLanes, a group's by its hash
  // A queue of its own for each group whose row was locked elsewhere, while it has writers.
  std::unordered_map<std::string, std::unique_ptr<Lane>> lanes_;
  std::unique_ptr<GateLists> gate_lists_;  // the reconcile gate's reads, kept (pg_gate_lists.h)
  std::atomic<uint64_t> round_trips_{0};   // Conn::CountRoundTripsIn
};

}  // namespace pc::pg
