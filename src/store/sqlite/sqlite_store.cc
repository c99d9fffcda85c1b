#include "store/sqlite/sqlite_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>

#include "common/clock.h"
#include "common/guarded.h"
#include "common/ids.h"
#include "ops/metrics.h"
#include "store/sqlite/db.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/sqlite_txn.h"
#include "store/sqlite/store_files.h"
#include "store/store_rows.h"

namespace pc::sqlite {
Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const SqliteOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.data_dir, ec);
  if (ec) return Internal("cannot create data directory " + options.data_dir + ": " + ec.message());
  std::unique_ptr<SqliteStore> store(new SqliteStore(options));
  if (const char* replay = std::getenv("POWERCONTEXT_TEST_REPLAY_WRITES");
      replay && std::strcmp(replay, "1") == 0)
    store->options_.replay_writes = true;
  store->fail_read_commits_ = options.fail_read_commits;
  store->db_path_ = (std::filesystem::path(options.data_dir) / kDbFileName).string();
  store->stamp_path_ = (std::filesystem::path(options.data_dir) / kTokensStampName).string();
  PC_ASSIGN_OR_RETURN(store->writer_, store->OpenConnection());
  PC_RETURN_IF_ERROR(store->writer_->Exec("PRAGMA journal_mode=WAL"));
  PC_RETURN_IF_ERROR(Migrate(*store->writer_));
  store->fail_log_syncs_ = options.fail_log_syncs;
  if (options.durability == Durability::kFull) {
    // The writer commits without an fsync and SyncLog makes each commit durable before its
    // writers are answered (sqlite_store.h). The migrations committed with FULL, above.
    PC_RETURN_IF_ERROR(store->writer_->Exec("PRAGMA synchronous=NORMAL"));
  }
  store->writer_->TrackWalFrames();
  store->writer_->KeepGateReads();  // the reconcile gate's reads, kept between writes
  PC_ASSIGN_OR_RETURN(store->checkpoint_db_, store->OpenConnection());
  store->checkpointer_ = std::thread([s = store.get()] { s->CheckpointLoop(); });
  return store;
}

namespace {
// Each connection's page cache, filled as pages are read (KiB). With SQLite's default, 2 MiB,
// quiet searches at 10k entries were 15–19% slower than through a memory map; with 16 MiB, 2–10%
// (at 100k, ~0.1 ms a search: docs/benchmarks.md).
constexpr int kPageCacheKiB = 16 * 1024;
}  // namespace

SqliteStore::SqliteStore(SqliteOptions options) : options_(std::move(options)) {}
SqliteStore::~SqliteStore() {
  if (wal_fd_ >= 0) ::close(wal_fd_);
  if (checkpointer_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(checkpoint_mu_);
      stopping_ = true;
    }
    checkpoint_cv_.notify_one();
    checkpointer_.join();
  }
}

void SqliteStore::CheckpointLoop() {
  std::unique_lock<std::mutex> lock(checkpoint_mu_);
  while (true) {
    checkpoint_cv_.wait(lock, [&] { return checkpoint_wanted_ || merge_wanted_ || stopping_; });
    if (stopping_) return;
    if (checkpoint_wanted_) {
      checkpoint_wanted_ = false;
      lock.unlock();
      RunGuarded("a checkpoint",
                 [&] { (void)checkpoint_db_->Checkpoint(); });  // retried at the next threshold
      lock.lock();
      continue;
    }
    // A merge is wanted: once it is due (kMergeEveryCommits), or once writes have paused for
    // kMergeQuiet.
    if (!merge_due_) {
      const uint64_t seen = commits_since_merge_;
      checkpoint_cv_.wait_for(lock, kMergeQuiet,
                              [&] { return stopping_ || checkpoint_wanted_ || merge_due_; });
      if (stopping_ || checkpoint_wanted_) continue;
      if (!merge_due_ && commits_since_merge_ != seen) continue;  // not quiet yet
    }
    merge_wanted_ = merge_due_ = false;
    commits_since_merge_ = 0;
    lock.unlock();
    bool more = false;
    TakeWritersTurn();
    RunGuarded("a full-text merge", [&] { more = MergeTextSegments(); });
    GiveBackWritersTurn();
    lock.lock();
    if (more) merge_wanted_ = merge_due_ = true;  // again, after the writers that queued meanwhile
  }
}

void SqliteStore::TakeWritersTurn() {
  std::unique_lock<std::mutex> lock(queue_mu_);
  ++turn_takers_;
  queue_cv_.wait(lock, [&] { return !leader_active_; });
  --turn_takers_;
  leader_active_ = true;
}

void SqliteStore::GiveBackWritersTurn() {
  std::lock_guard<std::mutex> lock(queue_mu_);
  PassWritersTurn();
}

bool SqliteStore::MergeTextSegments() {
  if (!writer_->Exec("BEGIN IMMEDIATE").ok()) return false;
  bool merged = false;
  for (const char* table : {"memory_fts", "source_fts"}) {
    const int64_t before = writer_->total_changes();
    if (!writer_
             ->Exec(std::string("INSERT INTO ") + table + "(" + table + ", rank) VALUES('merge', " +
                    std::to_string(kMergePages) + ")")
             .ok()) {
      (void)writer_->Exec("ROLLBACK");
      return false;
    }
    merged = merged || writer_->total_changes() - before >= 2;  // FTS5: 2 or more when it merged
  }
  if (!writer_->Exec("COMMIT").ok()) {
    (void)writer_->Exec("ROLLBACK");
    return false;
  }
  return merged;
}

Result<std::unique_ptr<Db>> SqliteStore::OpenConnection() {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::Open(db_path_, options_.busy_timeout_ms));
  const char* sync = options_.durability == Durability::kFull ? "FULL" : "NORMAL";
  PC_RETURN_IF_ERROR(db->Exec(std::string("PRAGMA synchronous=") + sync));
  PC_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON"));
  // Statement and savepoint journals (the pages a failed write of a group must restore) in memory:
  // a group-committed write touches ~20 pages, past the 64 KiB after which SQLite spills them to
  // a temporary file, and those writes were a fifth of a grouped write's time.
  PC_RETURN_IF_ERROR(db->Exec("PRAGMA temp_store=MEMORY"));
  // Reads through SQLite's page cache (a pread() and a copy per page missed), not a memory map.
  // Every commit makes each other connection drop what it has read at its next transaction (the
  // WAL changed); with a map, that is an munmap() of the whole map, which holds the process's
  // memory-map lock while it tears the map down (~0.8 ms each on these VMs; every thread's page
  // faults and mmap() calls wait behind it, the latter up to 100 ms), and then a page fault per
  // page read again. While four clients wrote and four searched, that doubled search latency
  // (docs/benchmarks.md, "Searches while writing").
  PC_RETURN_IF_ERROR(db->Exec("PRAGMA mmap_size=0"));
  PC_RETURN_IF_ERROR(db->Exec("PRAGMA cache_size=-" + std::to_string(kPageCacheKiB)));
  return db;
}

size_t SqliteStore::idle_readers() {
  std::lock_guard<std::mutex> lock(pool_mu_);
  return idle_readers_.size();
}

Status SqliteStore::Read(const std::function<Status(ReadTxn&)>& fn) {
  std::unique_ptr<Db> db;
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!idle_readers_.empty()) {
      db = std::move(idle_readers_.back());
      idle_readers_.pop_back();
    }
  }
  if (!db) {
    PC_ASSIGN_OR_RETURN(db, OpenConnection());
  }
  Status status = db->Exec("BEGIN");
  if (status.ok()) {
    SqliteTxn txn(*db, false, nullptr, &text_memo_);
    status = GuardedCallback<ReadTxn>(fn, txn);
    Status end = status.ok() && fail_read_commits_.load() > 0 && fail_read_commits_.fetch_sub(1) > 0
                     ? Internal("sqlite: disk I/O error (injected by the test)")
                     : db->Exec(status.ok() ? "COMMIT" : "ROLLBACK");
    if (status.ok()) status = end;
  }
  // A connection whose COMMIT or ROLLBACK failed may still be inside its transaction: the next
  // read would answer from this old snapshot (or fail to BEGIN). Roll it back, or drop it.
  if (db->InTransaction() && (!db->Exec("ROLLBACK").ok() || db->InTransaction())) return status;
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (idle_readers_.size() < kMaxIdleReaders) idle_readers_.push_back(std::move(db));
  return status;  // a connection not kept closes here, after the lock
}

struct SqliteStore::PendingWrite {
  const std::function<Status(WriteTxn&)>* fn;
  Status status;
  bool done = false;
  bool tokens_changed = false;  // created or revoked a token (the stamp moves after the commit)
  bool lead = false;  // handed the writer's turn by the group before (leader_active_ kept set)
  // Under queue_mu_: woken alone when the write is done or handed the turn, so a group's end
  // wakes its own writers and the next leader, not every queued thread (each wake-up is a
  // context switch, and most of them found nothing to do).
  std::condition_variable cv;
};

// Under queue_mu_, as the turn's holder lets go of it: to TakeWritersTurn when that waits (the
// full-text upkeep must not starve under a steady load), else to the oldest queued write, whose
// thread leads the next group; with no write queued the turn is free for the next to arrive.
void SqliteStore::PassWritersTurn() {
  if (turn_takers_ > 0 || queue_.empty()) {
    leader_active_ = false;
    if (turn_takers_ > 0) queue_cv_.notify_all();
    return;
  }
  PendingWrite* next = queue_.front();
  next->lead = true;
  next->cv.notify_one();
}

Status SqliteStore::Write(const Actor& actor, const std::function<Status(WriteTxn&)>& write) {
  if (sync_failed_.load(std::memory_order_acquire)) return SyncFailedRefusal();
  const std::function<Status(WriteTxn&)> fn =
      audit_ ? Audited(actor, write) : write;  // its audit row, same transaction
  PendingWrite me{&fn, Status::Ok()};
  std::unique_lock<std::mutex> lock(queue_mu_);
  queue_.push_back(&me);
  while (!me.done) {
    if (me.lead) {  // handed the turn: this write heads the queue
      me.lead = false;
    } else if (leader_active_ || queue_.empty()) {
      // Taken by a group whose leader answers it after the group's sync, or queued for the next.
      me.cv.wait(lock);
      continue;
    } else {
      leader_active_ = true;
    }
    // Lead: take what is queued (this write may not be in it if the queue was long), commit it.
    std::vector<PendingWrite*> group;
    while (!queue_.empty() && group.size() < kMaxGroupWrites) {
      group.push_back(queue_.front());
      queue_.pop_front();
    }
    lock.unlock();
    // The leader's own work must not throw past here: the flag below would stay set and every
    // writer would wait forever. A group that fails so is answered Internal, its transaction
    // rolled back.
    uint64_t commit = 0;
    if (sync_failed_.load(std::memory_order_acquire)) {  // queued before a sync failed
      for (PendingWrite* w : group) w->status = SyncFailedRefusal();
    } else if (!RunGuarded("a group commit", [&] { commit = RunGroup(group); })) {
      (void)writer_->Exec("ROLLBACK");
      for (PendingWrite* w : group)
        w->status = Internal("the write failed unexpectedly; nothing was kept");
      commit = 0;
    }
    const auto commit_started = commit_started_;
    // One checkpoint per kCheckpointFrames new log pages (the log restarts from its beginning
    // once a checkpoint has caught up): asking after every commit made them run back to back,
    // their fsyncs of the database competing with the commits' own.
    const int frames = writer_->wal_frames();
    if (frames < next_checkpoint_frames_ - kCheckpointFrames)
      next_checkpoint_frames_ = kCheckpointFrames;
    if (frames >= kCheckpointFrames * 8) {
      (void)writer_->Checkpoint();
    } else if (frames >= next_checkpoint_frames_) {
      next_checkpoint_frames_ = frames + kCheckpointFrames;
      std::lock_guard<std::mutex> cp(checkpoint_mu_);
      checkpoint_wanted_ = true;
      checkpoint_cv_.notify_one();
    }
    lock.lock();
    stats_.writes += group.size();
    stats_.commits += 1;
    {
      std::lock_guard<std::mutex> cp(checkpoint_mu_);
      const bool due = ++commits_since_merge_ >= kMergeEveryCommits;
      if (!merge_wanted_ || (due && !merge_due_)) checkpoint_cv_.notify_one();
      merge_wanted_ = true;
      merge_due_ = merge_due_ || due;
    }
    // The next group is written while this one's commit is synced.
    PassWritersTurn();
    if (commit != 0 && options_.durability == Durability::kFull) {
      lock.unlock();
      const Status synced = SyncLog(commit);
      lock.lock();
      if (!synced.ok())
        for (PendingWrite* w : group)
          if (w->status.ok()) w->status = synced;
    }
    if (commit != 0) ops::metrics().ObserveCommitSeconds(ops::SecondsSince(commit_started));
    for (PendingWrite* w : group) {
      w->done = true;
      if (w != &me) w->cv.notify_one();  // under the lock: its thread cannot return before
    }
  }
  return me.status;
}

Status SqliteStore::SyncLog(uint64_t commit) {
  return log_sync_.Await(commit, [&](uint64_t covers) -> Status {
    if (sync_failed_.load(std::memory_order_relaxed)) return Unconfirmed();
    if (options_.before_log_sync) options_.before_log_sync(covers);
    const std::string wal = db_path_ + "-wal";
    struct stat opened {
    }, named{};
    // The log is the same file for the store's life (SQLite truncates it, never replaces it while
    // a connection is open); checked anyway, for one stat a sync.
    if (wal_fd_ >= 0 && (::fstat(wal_fd_, &opened) != 0 || ::stat(wal.c_str(), &named) != 0 ||
                         opened.st_ino != named.st_ino || opened.st_dev != named.st_dev)) {
      ::close(wal_fd_);
      wal_fd_ = -1;
    }
    if (wal_fd_ < 0) wal_fd_ = ::open(wal.c_str(), O_RDONLY | O_CLOEXEC);
    int err = wal_fd_ < 0 ? errno : (::fdatasync(wal_fd_) == 0 ? 0 : errno);
    if (err == 0 && fail_log_syncs_ > 0) {
      --fail_log_syncs_;
      err = EIO;
    }
    if (err == 0) return Status::Ok();
    sync_failure_ = "syncing " + wal + ": " + std::strerror(err);
    sync_failed_.store(true, std::memory_order_release);
    std::cerr << "powercontext: error: " << Unconfirmed().message() << std::endl;
    return Unconfirmed();
  });
}

Status SqliteStore::Unconfirmed() const {
  return Internal("the write was committed but the disk did not confirm it (" + sync_failure_ +
                  "); it may not survive a power loss, and writes are refused until the server "
                  "restarts");
}

Status SqliteStore::SyncFailedRefusal() const {
  return Internal(
      "nothing was written: writes are refused until the server restarts, since a "
      "sync of the database's log failed (" +
      sync_failure_ + ")");
}

uint64_t SqliteStore::RunGroup(const std::vector<PendingWrite*>& group) {
  uint64_t commit = 0;
  if (options_.replay_writes) {
    (void)RunGroupPass(group, Pass::kRehearsal, &commit);
  } else if (RunGroupPass(group, Pass::kFast, &commit)) {
    return commit;
  }
  (void)RunGroupPass(group, Pass::kSavepoints, &commit);
  ops::metrics().CountCommitRerun();
  std::lock_guard<std::mutex> lock(queue_mu_);
  stats_.reruns += 1;
  return commit;
}

// The group's end: its full-text rows written and one COMMIT (the WAL's fsync) when any write
// succeeded; otherwise, or when that fails, a rollback, and every write answered ok is answered
// with the failure instead (nothing of the group is kept).
uint64_t SqliteStore::FinishGroup(const std::vector<PendingWrite*>& group, TextRows& text,
                                  bool any_ok, bool stamp_prepared) {
  Status commit = any_ok ? SqliteTxn(*writer_, true).WriteTextRows(text) : Status::Ok();
  if (commit.ok() && any_ok) {
    commit_started_ = std::chrono::steady_clock::now();
    commit = writer_->Exec("COMMIT");  // its fsync comes after (SyncLog) with Durability::kFull
    if (commit.ok())                   // the writes this one fsync acknowledges
      ops::metrics().ObserveCommitGroup(static_cast<size_t>(std::count_if(
          group.begin(), group.end(), [](const PendingWrite* w) { return w->status.ok(); })));
    // Before any of these writers returns: a revocation is seen by every process's next request.
    // The writes are committed, so they are answered as such whatever happens here: a new token's
    // secret is returned. A revocation is already seen by this process (TokenService drops its
    // cache); other processes on the directory see it once a later token change moves the stamp.
    if (commit.ok() && stamp_prepared)
      if (Status moved = PublishTokensStamp(); !moved.ok())
        std::cerr
            << "powercontext: error: a token change is committed, but other processes on this data "
               "directory may not see it until the next one: "
            << moved.message() << std::endl;
  }
  if (stamp_prepared && !commit.ok()) ::unlink(StampTempPath().c_str());
  if (!any_ok || !commit.ok()) {
    (void)writer_->Exec("ROLLBACK");
    for (PendingWrite* w : group)
      if (w->status.ok()) w->status = commit;  // nothing of the group is kept
    return 0;
  }
  return log_sync_.Committed();
}

// One transaction for the whole group, one fsync after its COMMIT. The first pass runs the writes
// one after another with nothing between them, their full-text rows written last (TextRows): a
// write that fails having changed nothing (a conflict, a bad reference: checks come before changes)
// simply drops out. A write that fails after changing rows cannot be undone alone that way, so
// the pass is rolled back and returns false, and the group runs again with each write in its own
// savepoint — slower (FTS5 makes a segment at every savepoint) but each write as if alone.
// A rehearsal (replay_writes) runs the fast pass and always rolls it back.
bool SqliteStore::RunGroupPass(const std::vector<PendingWrite*>& group, Pass pass,
                               uint64_t* commit) {
  const bool savepoints = pass == Pass::kSavepoints;
  Status begin = writer_->BeginImmediate();
  if (!begin.ok()) {
    // Another process held the write lock past the busy timeout: nothing ran, a retry may pass.
    for (PendingWrite* w : group)
      w->status = begin.code() == Code::kUnavailable
                      ? Unavailable("nothing was written: " + begin.message())
                      : Internal("cannot begin a write; nothing was written: " + begin.message());
    return true;
  }
  TextRows text;
  bool any_ok = false;
  bool stamp_prepared = false;
  // A write that changed a token fails here, before anything is committed, if the stamp every
  // process watches could not move after it (its one-time secret is never lost to a 500).
  auto check_stamp = [&](PendingWrite* w) {
    if (!w->status.ok() || !w->tokens_changed || stamp_prepared) return;
    Status prepared = PrepareTokensStamp();
    if (prepared.ok())
      stamp_prepared = true;
    else
      w->status = Internal("the token change was not kept: " + prepared.message());
  };
  for (PendingWrite* w : group) {
    if (!savepoints) {
      SqliteTxn txn(*writer_, true, &text);
      const uint64_t before = writer_->write_statements();
      const size_t rows = text.rows.size();
      w->status = GuardedCallback<WriteTxn>(*w->fn, txn);
      w->tokens_changed = !txn.audit_trail().tokens.empty();
      check_stamp(w);
      if (!w->status.ok() && writer_->write_statements() != before &&
          (group.size() > 1 || pass == Pass::kRehearsal)) {
        (void)writer_->Exec("ROLLBACK");
        if (stamp_prepared) ::unlink(StampTempPath().c_str());
        return false;
      }
      if (!w->status.ok() && text.rows.size() > rows) text.rows.resize(rows);
    } else {
      SqliteTxn txn(*writer_, true);
      Status sp = writer_->Exec("SAVEPOINT pc_write");
      w->status = sp.ok() ? GuardedCallback<WriteTxn>(*w->fn, txn) : sp;
      w->tokens_changed = !txn.audit_trail().tokens.empty();
      check_stamp(w);
      if (sp.ok() && !w->status.ok()) (void)writer_->RollbackTo("pc_write");
      if (sp.ok()) {
        Status released = writer_->Exec("RELEASE pc_write");
        if (w->status.ok() && !released.ok()) w->status = released;
      }
    }
    any_ok = any_ok || w->status.ok();
  }
  if (pass == Pass::kRehearsal) {
    (void)writer_->Exec("ROLLBACK");
    if (stamp_prepared) ::unlink(StampTempPath().c_str());
    return false;
  }
  *commit = FinishGroup(group, text, any_ok, stamp_prepared);
  return true;
}

// The stamp is a small file holding a fresh ULID (80 random bits), replaced by rename at every
// token change:
// every process reads it without a transaction (a read of the database after a write costs a
// page-cache refill; this is an open and a read). Random contents do not repeat, as an inode
// number and an mtime can.
std::string SqliteStore::TokensStamp() {
  int fd = ::open(stamp_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "none";
  char buf[64];
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "none";
}

std::string SqliteStore::StampTempPath() const {
  return stamp_path_ + ".tmp." + std::to_string(::getpid());
}

Status SqliteStore::PrepareTokensStamp() {
  const std::string tmp = StampTempPath();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Internal("cannot write " + tmp + ": " + std::strerror(errno));
  const std::string when = NewId("stamp_") + "\n";
  const bool written = ::write(fd, when.data(), when.size()) == static_cast<ssize_t>(when.size());
  const int saved = errno;
  ::close(fd);
  if (!written) {
    ::unlink(tmp.c_str());
    return Internal("cannot write " + tmp + ": " + std::strerror(saved));
  }
  return Status::Ok();
}

Status SqliteStore::PublishTokensStamp() {
  const std::string tmp = StampTempPath();
  if (::rename(tmp.c_str(), stamp_path_.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    return Internal("cannot replace " + stamp_path_ + ": " + std::strerror(saved));
  }
  return Status::Ok();
}

SqliteStore::GroupStats SqliteStore::group_stats() {
  std::lock_guard<std::mutex> lock(queue_mu_);
  return stats_;
}

}  // namespace pc::sqlite
