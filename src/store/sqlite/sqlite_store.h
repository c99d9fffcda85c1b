// The embedded store: one SQLite database (WAL) in the data directory.
//
// Thread-safe. Writes are serialized by a process-wide mutex and, across processes, by SQLite's
// write lock (BEGIN IMMEDIATE + busy timeout). Reads run on a pool of connections, each inside a
// read transaction, so every Read callback sees one committed snapshot.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/covering_sync.h"
#include "store/sqlite/text_memo.h"
#include "store/store.h"

namespace pc::sqlite {

class Db;
struct TextRows;

enum class Durability {
  kFull,    // a commit survives power loss once acknowledged (default): the log is synced before
            // any writer of it is answered (see "The log's sync" below)
  kNormal,  // synchronous=NORMAL: survives a process crash; the last commits may be lost on power
            // loss
};

struct SqliteOptions {
  std::string data_dir;  // created if missing; the database is data_dir/powercontext.db
  Durability durability = Durability::kFull;
  int busy_timeout_ms = 10000;
  // Test only: run every group twice, the first pass rolled back, the second with savepoints, so
  // every Write callback is replayed (store.h's write contract). Also on when the environment has
  // POWERCONTEXT_TEST_REPLAY_WRITES=1, so whole test suites and the binary can run this way.
  bool replay_writes = false;
  // Test only: the next this many read transactions end as if their COMMIT had failed (an I/O
  // error), leaving the connection inside its transaction.
  int fail_read_commits = 0;
  // Test only: called on the syncing thread just before the write-ahead log is synced for a
  // group's commit (Durability::kFull) with the number of commits the sync covers, and the next
  // this many syncs fail as if fdatasync had.
  std::function<void(uint64_t covers)> before_log_sync;
  int fail_log_syncs = 0;
};

// Writes are group-committed: concurrent Write calls queue up; one of them (the leader) runs a
// batch of up to kMaxGroupWrites in ONE SQLite transaction — in arrival order, so each sees the
// ones before it, and each fails alone (see RunGroupPass) — and commits it with one fsync (below).
// Every caller returns only after that commit is durable, with its own status. Serialized
// exactly as one by one (revisions, expected_revision, conflicts), at a fraction of the fsyncs.
inline constexpr size_t kMaxGroupWrites = 64;

// The log's sync (Durability::kFull). The writer's connection commits with synchronous=NORMAL:
// COMMIT appends the group's pages to the write-ahead log and returns without an fsync. The
// leader then gives the writer's turn to the next group and only after that syncs the log
// (fdatasync), outside the turn, and answers its writers: the next group is written while this
// one's sync runs, where synchronous=FULL would sync inside COMMIT with the turn held. A sync
// covers every commit before it (the log is appended in order; one that started after a commit
// returned answers it too, so concurrent groups share syncs). What a writer is told is what FULL
// promises: an acknowledged write is on disk. What differs: a commit is visible to reads for
// the moment between its COMMIT and its sync, so a read may see a write that a power loss in
// that moment would take (never one that was acknowledged). A sync that fails leaves its writes
// committed but unconfirmed: they are answered Internal, saying so, and every later write is
// refused until the process restarts (after a failed fsync the kernel may have dropped the
// pages, and a later sync that succeeds proves nothing), as PostgreSQL stops on one.

// Checkpoints (copying the write-ahead log into the database) run on a thread of their own once
// the log holds kCheckpointFrames pages, off the writers' path; only when the log passes
// kCheckpointFrames * 8 (a checkpointer that cannot catch up under a steady stream of writes)
// does the leader checkpoint itself, between groups, so the log stays bounded.
inline constexpr int kCheckpointFrames = 1000;

// Full-text upkeep: FTS5 writes each commit's rows as a new segment of its index and merges a
// level's segments only once it has 4 of them, so a large index holds ~17 segments, and every
// query reads each phrase's document list once per segment. After writes have paused for
// kMergeQuiet, or after kMergeEveryCommits commits under a steady stream of writes, the
// checkpointer thread takes the writer's turn between two groups, as a leader does, and merges up
// to kMergePages pages of a level of 2 segments or more (FTS5's 'merge' with `usermerge` 2,
// schema 18) in a transaction of its own, hands the turn back, and goes on that way while there
// was something to merge. A 100k-entry index is kept at one or two segments.
inline constexpr uint64_t kMergeEveryCommits = 32;
inline constexpr std::chrono::milliseconds kMergeQuiet{50};
inline constexpr int kMergePages = 64;

// Read connections kept open between reads; more are opened for a burst of concurrent reads and
// closed after it. Each keeps up to its page cache (sqlite_store.cc, kPageCacheKiB) while idle.
inline constexpr size_t kMaxIdleReaders = 16;

class SqliteStore final : public Store {
 public:
  static Result<std::unique_ptr<SqliteStore>> Open(const SqliteOptions& options);
  ~SqliteStore() override;

  // Read connections open and idle, kept for the next reads (tests: at most kMaxIdleReaders).
  size_t idle_readers();
  // What read transactions learned of the full-text indexes (tests).
  const TextMemo& text_memo() const { return text_memo_; }

  Status Read(const std::function<Status(ReadTxn&)>& fn) override;
  Status Write(const Actor& actor, const std::function<Status(WriteTxn&)>& fn) override;
  std::string TokensStamp() override;

  struct GroupStats {
    uint64_t writes = 0;   // Write calls committed or failed
    uint64_t commits = 0;  // transactions (fsyncs) they took
    uint64_t reruns = 0;   // groups run again with a savepoint per write (see RunGroupPass)
  };
  GroupStats group_stats();
  // Benchmarks only (bench/auth_bench.cc measures what the audit costs): writes without their
  // audit rows. Never off in the server.
  void set_audit_for_benchmark(bool on) { audit_ = on; }

 private:
  struct PendingWrite;
  explicit SqliteStore(SqliteOptions options);
  // Each returns the commit it made (counted by log_sync_), 0 if nothing was committed.
  uint64_t RunGroup(const std::vector<PendingWrite*>& group);
  enum class Pass { kFast, kSavepoints, kRehearsal };
  bool RunGroupPass(const std::vector<PendingWrite*>& group, Pass pass, uint64_t* commit);
  uint64_t FinishGroup(const std::vector<PendingWrite*>& group, TextRows& text, bool any_ok,
                       bool stamp_prepared);
  // Makes commit `commit` durable (above): returns at once if a sync since it did.
  Status SyncLog(uint64_t commit);
  Status Unconfirmed() const;        // to the writers of a commit whose sync failed
  Status SyncFailedRefusal() const;  // to every write after that
  Result<std::unique_ptr<Db>> OpenConnection();
  void CheckpointLoop();
  // One step of the full-text upkeep, on the writer's connection while this thread holds the
  // writer's turn: whether it merged anything.
  bool MergeTextSegments();
  void TakeWritersTurn();
  void GiveBackWritersTurn();
  void PassWritersTurn();
  // A token change moves the stamp in two steps: the new stamp is written to a temporary file
  // before the COMMIT (a failure there fails the token write, rolled back: nothing changed), and
  // renamed over the stamp after it (a rename in one directory; if even that fails, the change is
  // committed and answered as such, and the error logged).
  Status PrepareTokensStamp();
  Status PublishTokensStamp();
  std::string StampTempPath() const;

  SqliteOptions options_;
  std::atomic<bool> audit_{true};
  std::string db_path_;
  std::string stamp_path_;      // data_dir/tokens.stamp
  std::unique_ptr<Db> writer_;  // used by the current leader only
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;  // TakeWritersTurn's wait; a queued write has its own
  std::deque<PendingWrite*> queue_;
  bool leader_active_ = false;  // the writer's turn is held (a leader, or TakeWritersTurn)
  int turn_takers_ = 0;         // threads in TakeWritersTurn, waiting for the turn
  GroupStats stats_;
  CoveringSync log_sync_;  // counts the writer's commits; runs the log's syncs, one at a time
  std::chrono::steady_clock::time_point commit_started_;  // the leader's last COMMIT
  int wal_fd_ = -1;           // in a log sync: the write-ahead log, opened at the first sync
  std::string sync_failure_;  // what failed, written once, before sync_failed_
  std::atomic<bool> sync_failed_{false};  // a sync failed: every later write is refused
  int fail_log_syncs_ = 0;                // in a log sync: SqliteOptions::fail_log_syncs
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Db>> idle_readers_;  // at most kMaxIdleReaders; the last used on top
  TextMemo text_memo_;                     // what read transactions learned of full-text indexes
  std::atomic<int> fail_read_commits_{0};  // SqliteOptions::fail_read_commits
  std::unique_ptr<Db> checkpoint_db_;      // the checkpointer thread's own connection
  std::mutex checkpoint_mu_;
  std::condition_variable checkpoint_cv_;
  bool checkpoint_wanted_ = false, merge_wanted_ = false, merge_due_ = false, stopping_ = false;
  uint64_t commits_since_merge_ = 0;                // under checkpoint_mu_
  int next_checkpoint_frames_ = kCheckpointFrames;  // log size that asks for the next checkpoint
  std::thread checkpointer_;
};

}  // namespace pc::sqlite
