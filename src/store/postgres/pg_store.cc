#include "store/postgres/pg_store.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <thread>
#include <unordered_set>

#include "common/guarded.h"
#include "ops/metrics.h"
#include "store/postgres/pg_gate_lists.h"
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

// How long a scope's writes keep to its own lane after one found its row locked elsewhere (while
// another server writes the scope, moving there write after write would run each twice).
constexpr std::chrono::seconds kOwnLaneKeptFor{1};
constexpr size_t kOwnLanesSwept = 256;

// A row a NOWAIT lock asked for was locked by another transaction (lock_not_available), in `s`
// or in the statement that failed first in its transaction.
bool LockedElsewhere(Conn& conn, const Status& s) {
  return SqlState(s) == "55P03" || conn.first_failure() == "55P03";
}

// Lost a race with another transaction: run it again from a new snapshot.
bool Retryable(const std::string& state) {
  return state == "40001" || state == "40P01" || state == "23505";
}

// The SQLSTATE of a lost race that failed a write (`s`, or the statement that failed first in
// its transaction), or "" when it did not lose one.
std::string RaceOf(Conn& conn, const Status& s) {
  return Retryable(SqlState(s))            ? SqlState(s)
         : Retryable(conn.first_failure()) ? conn.first_failure()
                                           : "";
}

}  // namespace

Result<std::unique_ptr<PgStore>> PgStore::Open(const PgOptions& options) {
  std::unique_ptr<PgStore> store(new PgStore(options));
  if (const char* replay = std::getenv("POWERCONTEXT_TEST_REPLAY_WRITES");
      replay && std::strcmp(replay, "1") == 0)
    store->options_.replay_writes = true;
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, store->Connect());
  PC_RETURN_IF_ERROR(Migrate(*conn).status());
  store->fail_flushes_ = options.fail_flushes;
  store->open_ = 1;
  store->idle_.push_back(std::move(conn));
  return store;
}

uint64_t PgStore::write_retries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return retries_;
}

Result<std::unique_ptr<Conn>> PgStore::Connect() {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, Conn::Open(options_.url));
  conn->CountRoundTripsIn(&round_trips_);
  if (options_.relaxed_commit) PC_RETURN_IF_ERROR(conn->Exec("SET synchronous_commit = off"));
  return conn;
}

Result<std::unique_ptr<Conn>> PgStore::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!idle_cv_.wait_for(lock, std::chrono::milliseconds(options_.acquire_timeout_ms),
                         [&] { return !idle_.empty() || open_ < options_.max_connections; }))
    return Unavailable("all " + std::to_string(options_.max_connections) +
                       " connections to PostgreSQL stayed busy for " +
                       std::to_string(options_.acquire_timeout_ms) + " ms; nothing was done");
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
  if (healthy)
    idle_.push_back(std::move(conn));
  else
    --open_;
  idle_cv_.notify_one();
}

Status PgStore::Read(const std::function<Status(ReadTxn&)>& fn) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Conn> conn, Acquire());
  // Queued: it travels with the read's first statement (Conn::Query), one round trip fewer.
  Status status = conn->Send("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", {});
  bool healthy = status.ok();
  if (status.ok()) {
    PgTxn txn(*conn, false, gate_lists_.get());
    status = GuardedCallback<ReadTxn>(fn, txn);
    // A read-only transaction that read what it wanted commits without waiting for the answer
    // (Conn::SendEnd): one round trip fewer for every read.
    Status end = status.ok() ? conn->SendEnd("COMMIT") : conn->Exec("ROLLBACK");
    healthy = end.ok();
    if (status.ok()) status = end;
  }
  Release(std::move(conn), healthy);
  return status;
}

struct PgStore::PendingWrite {
  const std::function<Status(WriteTxn&)>* fn = nullptr;
  Status status;
  std::string race;  // the SQLSTATE of a lost race (runs again), however the callback reported it
  const std::string* group = nullptr;  // WriteFor's: its scope
  // In a shared lane's group, its scope's row was locked by another transaction (NOWAIT failed):
  // nothing of it was kept, and it runs again on its scope's own lane.
  bool contended = false;
  bool done = false;
  bool lead = false;  // handed the lane by the group before (Lane::leading kept set)
  // Its revisions of new entries (PgTxn::NoteOwnRevisionsIn), this pass's: for the gate lists
  // once its commit is durable.
  std::vector<OwnRevision> noted;
  // Under lanes_mu_: woken alone when the write is done or handed the lane, so a group's end
  // wakes its own writers and the next leader, not every thread queued on the scope.
  std::condition_variable cv;
};

struct PgStore::Lane {
  bool shared = false;  // one of shared_lanes_: its groups lock NOWAIT, and it is never erased
  std::deque<PendingWrite*> queue;
  bool leading = false;  // one of its writers is running a group
  int writers = 0;       // queued or running
  // A scope's own lane: when a write last found the scope's row locked elsewhere. The lane goes
  // once it has no writer and that was over kOwnLaneKeptFor ago.
  std::chrono::steady_clock::time_point contended_at;
  bool Kept(std::chrono::steady_clock::time_point now) const {
    return writers > 0 || now - contended_at < kOwnLaneKeptFor;
  }
};

PgStore::PgStore(PgOptions options)
    : options_(std::move(options)), gate_lists_(std::make_unique<GateLists>()) {
  for (size_t i = 0; i < kSharedLanes; ++i) {
    shared_lanes_.push_back(std::make_unique<Lane>());
    shared_lanes_.back()->shared = true;
  }
}
PgStore::~PgStore() = default;

Status PgStore::Write(const Actor& actor, const std::function<Status(WriteTxn&)>& write) {
  return Submit("", actor, write);
}

Status PgStore::WriteFor(const std::string& group, const Actor& actor,
                         const std::function<Status(WriteTxn&)>& write) {
  return Submit(group, actor, write);
}

Status PgStore::Submit(const std::string& group, const Actor& actor,
                       const std::function<Status(WriteTxn&)>& write) {
  const std::function<Status(WriteTxn&)> fn =
      Audited(actor, write);  // its audit row, same transaction
  PendingWrite me;
  me.fn = &fn;
  me.group = &group;
  if (group.empty()) {
    std::vector<PendingWrite*> alone{&me};
    std::unique_ptr<Conn> conn;
    const uint64_t commit = RunGroup(alone, nullptr, &conn);
    AnswerWhenDurable(alone, commit, std::move(conn));
  } else {
    std::unique_lock<std::mutex> lock(lanes_mu_);
    // A scope with a lane of its own is one whose row another server held lately: its writes
    // queue there, in order, until the lane is empty and the contention over (Lane::Kept).
    // Every other write takes its shared lane.
    const auto now = std::chrono::steady_clock::now();
    auto own = lanes_.find(group);
    if (own != lanes_.end() && !own->second->Kept(now)) {
      lanes_.erase(own);
      own = lanes_.end();
    }
    if (own == lanes_.end()) {
      RunQueued(*shared_lanes_[std::hash<std::string>{}(group) % shared_lanes_.size()], group, me,
                lock);
      if (!me.contended) return Answer(me);
      me.status = Status::Ok();  // nothing of it was kept: it runs again, waiting for the row
      me.race.clear();
      me.done = me.lead = me.contended = false;
      Lane& lane = OwnLane(group);
      lane.contended_at = std::chrono::steady_clock::now();
      RunQueued(lane, group, me, lock);
    } else {
      RunQueued(*own->second, group, me, lock);
    }
  }
  return Answer(me);
}

Status PgStore::Answer(const PendingWrite& me) const {
  // Contention, not a fault: nothing was written, and a retry a moment later usually passes.
  if (!me.race.empty())
    return Unavailable("the write lost " + std::to_string(options_.max_write_attempts) +
                       " races with other writers; nothing was written: " + me.status.message());
  return me.status;
}

PgStore::Lane& PgStore::OwnLane(const std::string& group) {
  // Lanes of scopes no longer written stay until there are this many.
  if (lanes_.size() >= kOwnLanesSwept) {
    const auto now = std::chrono::steady_clock::now();
    for (auto it = lanes_.begin(); it != lanes_.end();)
      it = it->second->Kept(now) ? std::next(it) : lanes_.erase(it);
  }
  std::unique_ptr<Lane>& slot = lanes_[group];
  if (!slot) slot = std::make_unique<Lane>();
  return *slot;
}

void PgStore::RunQueued(Lane& lane, const std::string& group, PendingWrite& me,
                        std::unique_lock<std::mutex>& lock) {
  ++lane.writers;
  lane.queue.push_back(&me);
  while (!me.done) {
    if (me.lead) {  // handed the lane: this write heads its queue
      me.lead = false;
    } else if (lane.leading || lane.queue.empty()) {
      // Taken by a group whose leader answers it once its commit is durable, or queued.
      me.cv.wait(lock);
      continue;
    } else {
      lane.leading = true;
    }
    // Lead: take what is queued (this write may not be in it if the queue was long), commit it.
    std::vector<PendingWrite*> batch;
    while (!lane.queue.empty() && batch.size() < kMaxPgGroupWrites) {
      batch.push_back(lane.queue.front());
      lane.queue.pop_front();
    }
    lock.unlock();
    std::unique_ptr<Conn> conn;
    const uint64_t commit = RunGroup(batch, &lane, &conn);
    lock.lock();
    // The lane's next group runs while this one's commit is flushed, led by the oldest queued
    // write.
    if (lane.queue.empty()) {
      lane.leading = false;
    } else {
      lane.queue.front()->lead = true;
      lane.queue.front()->cv.notify_one();
    }
    lock.unlock();
    AnswerWhenDurable(batch, commit, std::move(conn));
    lock.lock();
    for (PendingWrite* w : batch) {
      w->done = true;
      if (w != &me) w->cv.notify_one();  // under the lock: its thread cannot return before
    }
  }
  if (--lane.writers == 0 && !lane.shared && !lane.Kept(std::chrono::steady_clock::now()))
    lanes_.erase(group);
}

uint64_t PgStore::RunGroup(std::vector<PendingWrite*>& group, Lane* lane,
                           std::unique_ptr<Conn>* kept) {
  std::mt19937 jitter(std::random_device{}());
  const bool nowait = lane && lane->shared;  // its retries too: they run while it holds the lane
  uint64_t last_commit = 0;
  std::vector<PendingWrite*> raced_before;
  for (int attempt = 1;; ++attempt) {
    // The first attempt is the group itself, which may grow; the later ones, what lost a race.
    std::vector<PendingWrite*>& pending = attempt == 1 ? group : raced_before;
    auto conn = Acquire();
    if (!conn.ok()) {
      for (PendingWrite* w : pending) {
        w->status = conn.status();
        w->race.clear();
      }
      return last_commit;
    }
    // The group's own work must not throw past here: its writers would wait forever. A group that
    // fails so is answered Internal, its transaction rolled back.
    if (!RunGuarded("a group commit", [&] {
          last_commit = std::max(
              last_commit, RunAttempt(**conn, pending, attempt == 1 ? lane : nullptr, nowait));
        }))
      for (PendingWrite* w : pending) {
        w->status = Internal("the write failed unexpectedly; nothing was kept");
        w->race.clear();
      }
    if (!(*conn)->Idle()) (void)(*conn)->Exec("ROLLBACK");
    const bool healthy = (*conn)->Idle();
    std::vector<PendingWrite*> raced;
    size_t moved = 0;
    for (PendingWrite* w : pending) {
      if (!w->race.empty()) raced.push_back(w);
      moved += w->contended;
    }
    const bool last = raced.empty() || attempt >= options_.max_write_attempts;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.writes += pending.size() - raced.size() - moved;
      stats_.moved += moved;
      stats_.commits += 1;
      if (last)
        stats_.writes += raced.size();
      else
        retries_ += raced.size();
    }
    if (last && healthy) {
      *kept = std::move(conn).value();  // for the flush that answers the group
      return last_commit;
    }
    Release(std::move(conn).value(), healthy);
    if (last) return last_commit;
    ops::metrics().CountCommitRerun();
    raced_before = std::move(raced);
    // Back off a little, more after each loss, so racing writers spread out.
    const int ceiling_us = std::min(20000, 200 << std::min(attempt, 6));
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(0, ceiling_us)(jitter)));
  }
}

uint64_t PgStore::RunAttempt(Conn& conn, std::vector<PendingWrite*>& group, Lane* lane,
                             bool nowait) {
  uint64_t commit = 0;
  if (RunPass(conn, group, options_.replay_writes ? Pass::kRehearsal : Pass::kFast, lane, nowait,
              &commit) == Outcome::kDone)
    return commit;
  (void)RunPass(conn, group, Pass::kSavepoints, nullptr, nowait,
                &commit);  // exactly the writes of the first pass
  ops::metrics().CountCommitRerun();
  std::lock_guard<std::mutex> lock(mu_);
  stats_.reruns += 1;
  return commit;
}

// A group's COMMIT does not wait for its WAL flush (synchronous_commit off for it, so the scope's
// row lock passes on at once); its writers are answered after a flush that covers it: a
// transaction that commits synchronously flushes the WAL up to its own commit record, so every
// commit before it too. It runs on the group's own connection, one at a time (CoveringSync).
void PgStore::AnswerWhenDurable(std::vector<PendingWrite*>& group, uint64_t commit,
                                std::unique_ptr<Conn> conn) {
  bool healthy = true;
  if (commit != 0 && !options_.relaxed_commit) {
    const Status flushed = flush_.Await(commit, [&](uint64_t covers) -> Status {
      if (options_.before_flush) options_.before_flush(covers);
      if (!conn) {
        auto acquired = Acquire();
        if (!acquired.ok()) return acquired.status();
        conn = std::move(acquired).value();
      }
      if (fail_flushes_ > 0) {
        --fail_flushes_;
        return Unavailable("the flush was made to fail (PgOptions::fail_flushes)");
      }
      Status s = conn->Exec("BEGIN; SELECT pg_current_xact_id(); COMMIT");
      if (!conn->Idle()) (void)conn->Exec("ROLLBACK");
      healthy = s.ok() && conn->Idle();
      return s;
    });
    // Committed, so not "nothing was written, retry" (Unavailable): a retry would write it twice.
    if (!flushed.ok())
      for (PendingWrite* w : group)
        if (w->status.ok())
          w->status = Internal(
              "the write was committed but PostgreSQL did not confirm it on disk (" +
              flushed.message() + "); it may be lost if the database stops before its next flush");
  }
  if (conn) Release(std::move(conn), healthy);
  // Durable: the gate lists can follow this server's own revisions without reading them back
  // (GateLists::Note), noted before the writers are answered, so a writer's next lookup finds
  // them. Only a scope's one write in the group: where several writers write a scope at once,
  // their lookups already share one read per head (GateLists::Claim), and following notes too
  // moved the lists past more lookups still running on older snapshots, which then read the
  // index whole (one scope, 16 writers: a sixth more term-list reads, twice the candidates').
  std::unordered_map<std::string, int> writes_of;  // by scope
  for (PendingWrite* w : group)
    if (w->group) ++writes_of[*w->group];
  for (PendingWrite* w : group)
    if (w->status.ok() && w->group && writes_of[*w->group] == 1)
      for (OwnRevision& own : w->noted)
        if (own.Resolve()) gate_lists_->Note(own.memory, own.revision, own.changes);
}

// Writes queued on the lane since the group was taken join it, up to the cap: they would
// otherwise wait for this COMMIT and then for the scope's lock again.
void PgStore::JoinQueued(std::vector<PendingWrite*>& group, Lane* lane) {
  if (!lane) return;
  std::lock_guard<std::mutex> lock(lanes_mu_);
  while (!lane->queue.empty() && group.size() < kMaxPgGroupWrites) {
    group.push_back(lane->queue.front());
    lane->queue.pop_front();
  }
}

bool PgStore::NoneQueued(Lane* lane) {
  if (!lane) return true;
  std::lock_guard<std::mutex> lock(lanes_mu_);
  return lane->queue.empty();
}

// A failure of the transaction itself (BEGIN, a savepoint, COMMIT): every write still standing
// (with `only_ok`: every write that succeeded) gets it, and runs again if it was a lost race.
void PgStore::FailAll(Conn& conn, std::vector<PendingWrite*>& group, const Status& s,
                      bool only_ok) {
  const std::string race = RaceOf(conn, s);
  for (PendingWrite* w : group)
    if (!only_ok || w->status.ok()) {
      w->status = s;
      w->race = race;
      w->contended = false;
    }
  (void)conn.Exec("ROLLBACK");
}

// One transaction for the group, one WAL flush at COMMIT. The fast pass runs the writes one after
// another with nothing between them: a write that fails having sent no change (a conflict, a bad
// reference: checks come before changes) simply drops out. One that fails after a change, or on a
// failed statement (PostgreSQL then refuses the rest of the transaction), cannot be undone alone
// so: the pass is rolled back and answers kRerun, and the group runs again with each write in its
// own savepoint. A write alone needs no savepoint: its transaction is rolled back (and run again
// if it lost a race). A rehearsal (replay_writes) runs the fast pass and always rolls it back;
// then the savepoint pass runs every write again (a write alone that failed is answered at once).
PgStore::Outcome PgStore::RunPass(Conn& conn, std::vector<PendingWrite*>& group, Pass pass,
                                  Lane* lane, bool nowait, uint64_t* committed) {
  const bool savepoints = pass == Pass::kSavepoints;
  auto race_of = [&](const Status& s) { return RaceOf(conn, s); };
  auto fail_all = [&](const Status& s, bool only_ok) { FailAll(conn, group, s, only_ok); };
  conn.ClearFailure();
  for (PendingWrite* w : group) {
    w->status = Status::Ok();
    w->race.clear();
    w->contended = false;
    w->noted.clear();  // the pass before was rolled back; nothing of it is queued any more
  }
  // A write whose scope's row was locked elsewhere (nowait): so are its scope's next ones.
  std::unordered_set<std::string> locked_elsewhere;
  auto contended = [&](PendingWrite* w) {
    if (!nowait || !LockedElsewhere(conn, w->status)) return false;
    w->contended = true;
    w->race.clear();
    locked_elsewhere.insert(*w->group);
    return true;
  };
  // Queued: it travels with the first statement of the first write (one round trip fewer).
  if (Status begin = conn.Send("BEGIN ISOLATION LEVEL READ COMMITTED", {}); !begin.ok()) {
    fail_all(begin, false);
    return Outcome::kDone;
  }
  bool any_ok = false;
  ChangedLinesMemo changed;  // the group's gate reads, this transaction's only
  for (size_t i = 0; i < group.size(); ++i) {
    PendingWrite* w = group[i];
    if (locked_elsewhere.count(*w->group)) {
      w->status = Unavailable("its scope is being written by another server");
      w->contended = true;
      if (i + 1 == group.size()) JoinQueued(group, lane);
      continue;
    }
    if (savepoints) {
      if (Status sp = conn.Exec("SAVEPOINT pc_write"); !sp.ok()) {
        fail_all(sp, false);
        return Outcome::kDone;
      }
      conn.ClearFailure();
    }
    const uint64_t changes = conn.changes();
    PgTxn txn(conn, true, nullptr, &changed);
    if (nowait) txn.LockWithoutWaiting();
    txn.NoteOwnRevisionsIn(&w->noted);
    w->status = GuardedCallback<WriteTxn>(*w->fn, txn);
    // A write alone in the fast pass, no other writer queued on its lane: its changes go with the
    // COMMIT, in one round trip. Whatever fails there, its own statements or the COMMIT, it is
    // answered as it would be here: rolled back, with that error (or run again, a lost race).
    if (w->status.ok() && pass == Pass::kFast && group.size() == 1 && NoneQueued(lane)) {
      any_ok = true;
      break;
    }
    // The changes it queued (Conn::Send) are answered here, so their errors are its own.
    if (Status sent = conn.Flush(); w->status.ok() && !sent.ok()) w->status = sent;
    if (!w->status.ok()) {
      const bool aborted = !conn.first_failure().empty();
      if (!savepoints &&
          group.size() == 1) {  // alone, rehearsed or not: answered (or run again) now
        w->race = race_of(w->status);
        (void)contended(w);
        (void)conn.Exec("ROLLBACK");
        return Outcome::kDone;
      }
      if (!savepoints && (aborted || conn.changes() != changes)) {
        (void)conn.Exec("ROLLBACK");
        return Outcome::kRerun;
      }
      // Dropped out; runs again after the others if it lost a race, on its scope's own lane if
      // the scope's row was locked elsewhere.
      w->race = race_of(w->status);
      (void)contended(w);
      if (savepoints) {
        if (Status back = conn.Exec("ROLLBACK TO SAVEPOINT pc_write"); !back.ok()) {
          fail_all(back, false);
          return Outcome::kDone;
        }
        changed.clear();   // its revisions are numbered again
        w->noted.clear();  // flushed above: no answer is still to come into it
      }
    }
    if (savepoints) {
      if (Status released = conn.Exec("RELEASE SAVEPOINT pc_write"); !released.ok()) {
        fail_all(released, false);
        return Outcome::kDone;
      }
    }
    any_ok = any_ok || w->status.ok();
    if (i + 1 == group.size()) JoinQueued(group, lane);
  }
  if (pass == Pass::kRehearsal || !any_ok) {
    (void)conn.Exec("ROLLBACK");
    return pass == Pass::kRehearsal ? Outcome::kRerun : Outcome::kDone;
  }
  const auto started = std::chrono::steady_clock::now();
  // Without its WAL flush, which AnswerWhenDurable waits for after the scope's lock is passed on;
  // in one round trip with whatever the last write queued.
  Status commit = Status::Ok();
  if (!options_.relaxed_commit) commit = conn.Send("SET LOCAL synchronous_commit = off", {});
  if (commit.ok()) commit = conn.Send("COMMIT", {});
  if (Status sent = conn.Flush(); commit.ok()) commit = sent;
  ops::metrics().ObserveCommitSeconds(ops::SecondsSince(started));
  if (!commit.ok()) {
    fail_all(commit, true);  // nothing of the group is kept
    return Outcome::kDone;
  }
  ops::metrics().ObserveCommitGroup(static_cast<size_t>(std::count_if(
      group.begin(), group.end(), [](const PendingWrite* w) { return w->status.ok(); })));
  *committed = flush_.Committed();
  return Outcome::kDone;
}

PgStore::GroupStats PgStore::group_stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
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

// A job's lock is named by the job and the schema the store lives in (the session's current
// schema): advisory locks are the database's, and two deployments on one database in two schemas
// are two memories whose jobs must not wait on each other. (The test suite runs each test's
// servers in a schema of their own: one server's backfill made another skip its own.)
constexpr const char* kLockJob =
    "SELECT pg_try_advisory_lock(hashtext(coalesce(current_schema(), '') || ' ' || $1))";
constexpr const char* kUnlockJob =
    "SELECT pg_advisory_unlock(hashtext(coalesce(current_schema(), '') || ' ' || $1))";

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
      if (locked) healthy = conn->Query(kUnlockJob, {key}).ok();
      store.Release(std::move(conn), healthy);
    }
  } holder{*this, std::move(acquired).value(), key};
  auto got = holder.conn->Query(kLockJob, {key});
  holder.locked = got.ok() && got->Text(0, 0) == "t";
  if (!got.ok()) Release(std::move(holder.conn), false);  // not a connection to keep
  if (holder.locked) job();
  return holder.locked;
}

}  // namespace pc::pg
