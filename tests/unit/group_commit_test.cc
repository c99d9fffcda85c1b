// Group commit (store/sqlite/sqlite_store.h): concurrent writes share transactions and fsyncs,
// yet each keeps its own revision and answer, and conflicts come out exactly as one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "search/hash_embedder.h"
#include "service/core/actor.h"
#include "service/handoff/handoff_service.h"
#include "service/search/search_service.h"
#include "store/postgres/pg_store.h"
#include "test_util.h"

namespace pc {
namespace {

TEST(GroupCommit, ConcurrentWritesShareCommitsAndLoseNothing) {
  testing::Fixture f;
  std::string scope = f.NewScope();
  constexpr int kThreads = 16, kEach = 40;
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  std::mutex mu;
  std::set<int64_t> revisions;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = f.memory->Remember({scope,
                                     "fact",
                                     "thread " + std::to_string(t) + " item " + std::to_string(i),
                                     "",
                                     "t",
                                     {}});
        if (!r.ok()) {
          ADD_FAILURE() << r.status().ToString();
          ++failed;
          continue;
        }
        std::lock_guard<std::mutex> lock(mu);
        EXPECT_TRUE(revisions.insert(r->memory.revision).second)
            << "two writes answered one revision";
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failed, 0);
  ASSERT_EQ(revisions.size(), static_cast<size_t>(kThreads * kEach));
  EXPECT_EQ(*revisions.begin(), 1);
  EXPECT_EQ(*revisions.rbegin(), kThreads * kEach);  // 1..N, none missing
  auto page = f.memory->ListEntries({scope, std::nullopt, false, {1000, ""}});
  PC_ASSERT_OK(page);
  EXPECT_EQ(page->items.size(), static_cast<size_t>(kThreads * kEach));
  if (f.sqlite()) {  // SQLite's group commit (PostgreSQL commits each write on its own connection)
    auto stats = f.sqlite()->group_stats();
    EXPECT_LT(stats.commits, stats.writes) << "no write shared a commit";
  }
  // Full-text rows are written once per group, after its writes: every entry is found by its text.
  for (int t = 0; t < kThreads; t += 5) {
    auto found = f.store->Read([&](ReadTxn& txn) -> Status {
      auto scope_row = txn.FindScope(scope);
      if (!scope_row.ok()) return scope_row.status();
      auto hits =
          txn.SearchText((*scope_row)->memory_artifact_id,
                         BuildTextQuery("thread " + std::to_string(t) + " item 7"), false, 3);
      if (!hits.ok()) return hits.status();
      const std::string want =
          "thread " + std::to_string(t) + " item 7";  // ties with "thread 7 item t"
      EXPECT_TRUE(std::any_of(hits->begin(), hits->end(), [&](const ReadTxn::TextHit& h) {
        return h.item.version.text == want;
      })) << want;
      return Status::Ok();
    });
    PC_ASSERT_OK(found);
  }
  // A restart reads every one of them back.
  f.Reopen();
  auto again = f.memory->ListEntries({scope, std::nullopt, false, {1000, ""}});
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->items.size(), static_cast<size_t>(kThreads * kEach));
}

TEST(GroupCommit, ConflictsAreExactlyAsOneByOne) {
  testing::Fixture f;
  std::string scope = f.NewScope();
  PC_ASSERT_OK(f.memory->Remember({scope, "fact", "the first entry", "", "t", {}}));
  constexpr int kThreads = 16;
  std::atomic<int> won{0}, conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Everyone believes the memory is at revision 1; exactly one can be right.
      auto r =
          f.memory->Remember({scope, "fact", "claim " + std::to_string(t), "", "t", int64_t{1}});
      if (r.ok())
        ++won;
      else if (r.status().code() == Code::kConflict)
        ++conflicts;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(won, 1);
  EXPECT_EQ(conflicts, kThreads - 1);
  EXPECT_EQ(f.memory->GetScope(scope)->memory_head_revision, 2);

  // Writes that fail inside a shared transaction are undone alone: duplicates and stale revises
  // mixed with good adds.
  auto base = f.memory->Remember({scope, "fact", "the base entry", "", "t", {}});
  PC_ASSERT_OK(base);
  std::atomic<int> added{0}, refused{0};
  threads.clear();
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        Result<WriteOutcome> r = Status(Code::kInternal, "");
        if (i % 2)
          r = f.memory->Revise({scope, *base->citation, "stale " + std::to_string(t * 100 + i),
                                std::nullopt, "", "t"});
        else
          r = f.memory->Remember(
              {scope, "fact", "good " + std::to_string(t * 100 + i), "", "t", {}});
        if (r.ok() && r->changed)
          ++added;
        else
          ++refused;
      }
    });
  for (auto& th : threads) th.join();
  // The first revise may win (its citation was the head) before the adds move the head on.
  EXPECT_GE(added, kThreads * 5);
  EXPECT_LE(added, kThreads * 5 + 1);
  EXPECT_EQ(added + refused, kThreads * 10);
  EXPECT_EQ(f.memory->GetScope(scope)->memory_head_revision, 3 + added);
}

// A write that fails after it changed rows, in a group with others: the group runs again with a
// savepoint per write, so that write leaves nothing and the others keep everything, full text
// included.
TEST(GroupCommit, AWriteFailingAfterChangesIsUndoneAlone) {
  testing::Fixture f;
  std::string scope = f.NewScope("project:group");
  testing::WriterHeld leader(*f.store, 300);  // the others queue up into one group
  auto append = [&](const std::string& text, bool fail_after) {
    return f.store->Write(RequestActor(), [&, text, fail_after](WriteTxn& txn) -> Status {
      Source s;
      s.source_id = "src_" + text;
      s.scope_id = scope;
      s.kind = "chat";
      s.purpose = kPurposeMemory;
      s.content = text;
      s.metadata_json = "{}";
      auto appended = txn.AppendSource(s);
      if (!appended.ok()) return appended.status();
      return fail_after ? InvalidArgument("refused after writing") : Status::Ok();
    });
  };
  std::vector<std::thread> writers;
  std::vector<Status> results(4, Status::Ok());
  const char* texts[] = {"alpha kept", "bravo refused", "charlie kept", "delta kept"};
  for (int i = 0; i < 4; ++i)
    writers.emplace_back([&, i] { results[i] = append(texts[i], i == 1); });
  for (auto& w : writers) w.join();
  leader.Join();
  EXPECT_TRUE(results[0].ok() && results[2].ok() && results[3].ok());
  EXPECT_EQ(results[1].code(), Code::kInvalidArgument);
  if (f.sqlite()) {
    EXPECT_GE(f.sqlite()->group_stats().reruns, 1u) << "the refused write did not share a group";
  }
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    auto log = txn.ListSources(scope, 0, 10);
    if (!log.ok()) return log.status();
    EXPECT_EQ(log->size(), 3u);
    for (size_t i = 0; i < log->size(); ++i) {
      EXPECT_EQ((*log)[i].position, static_cast<int64_t>(i + 1)) << "positions have no gap";
      EXPECT_NE((*log)[i].content, "bravo refused");
    }
    for (const char* word : {"alpha", "charlie", "delta", "bravo"}) {
      auto hits = txn.SearchSources(scope, BuildTextQuery(word), 5);
      if (!hits.ok()) return hits.status();
      EXPECT_EQ(hits->size(), std::string(word) == "bravo" ? 0u : 1u) << word;
    }
    return Status::Ok();
  }));
}

// The realistic trigger of a replayed group: a handoff commit that creates its scope and then
// conflicts, grouped with remembers and a revise. The group runs again with savepoints, so every
// write callback runs twice; the remembered entries must still carry their vectors (a callback
// that moved its vector out left the re-run an empty profile and a NULL vector: vector search
// then answered 422 for the scope, or silently lost the entry).
TEST(GroupCommit, ReplayedWritesKeepTheirVectors) {
  testing::Fixture f;
  HashEmbedder embedder;
  MemoryService memory(*f.store, ServiceLimits{}, &embedder);
  SearchService search(*f.store, &embedder);
  HandoffService handoff(*f.store, nullptr);
  std::string scope = f.NewScope("project:replay");
  auto first = memory.Remember({scope, "fact", "The importer reads CSV files.", "", "t", {}});
  PC_ASSERT_OK(first);
  testing::WriterHeld leader(*f.store, 400);  // the others queue up into one group
  // The remembers queue first, so the group's first pass runs them before the handoff fails.
  std::vector<std::thread> writers;
  for (int i = 0; i < 3; ++i)
    writers.emplace_back([&, i] {
      PC_ASSERT_OK(
          memory.Remember({scope,
                           "fact",
                           "Replayed entry number " + std::to_string(i) + " about parquet exports.",
                           "",
                           "t",
                           {}}));
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Status conflict = Status::Ok();
  writers.emplace_back([&] {
    HandoffCitation c;
    c.kind = HandoffCitationKind::kSource;
    c.source_name = kContentSourceName;
    c.source_id = "s1";
    PreparedHandoff h{"project:replay-handoff", MemoryRef{kHandoffFamily, "hnd_x", 7},
                      HandoffContent{"stopped here",
                                     {{"stopped", {c}}},
                                     HandoffDisposition::kContinuable,
                                     std::nullopt,
                                     {}}};
    conflict =
        handoff.Commit("project:replay-handoff", h).status();  // creates the scope, then conflicts
  });
  for (auto& w : writers) w.join();
  leader.Join();
  EXPECT_EQ(conflict.code(), Code::kConflict);
  if (f.sqlite()) {
    EXPECT_GE(f.sqlite()->group_stats().reruns, 1u)
        << "the conflicting handoff did not share a group";
  }
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    auto s = txn.FindScope(scope);
    if (!s.ok()) return s.status();
    auto state = txn.GetVectorState((*s)->memory_artifact_id);
    if (!state.ok()) return state.status();
    EXPECT_EQ(state->profile, embedder.profile().Key());
    EXPECT_EQ(state->missing, 0) << "a replayed write lost its vector";
    auto handoff_scope = txn.FindScopeByKey("project:replay-handoff");
    if (!handoff_scope.ok()) return handoff_scope.status();
    EXPECT_FALSE(handoff_scope->has_value()) << "the refused handoff left its scope behind";
    return Status::Ok();
  }));
  auto hits = search.Search(
      {scope, "parquet exports", SearchMode::kVector, 10, false, std::nullopt, false});
  PC_ASSERT_OK(hits);
  EXPECT_EQ(hits->hits.size(), 3u);
  EXPECT_EQ(memory.GetScope(scope)->memory_head_revision, 4);
}

// Every write replayed (the test switch of store.h's contract): remember, revise and retire keep
// their vectors and full-text rows, answer as if run once, and leave contiguous revisions.
TEST(GroupCommit, EveryWriteReplayedAnswersAsIfRunOnce) {
  testing::TempDir dir;
  sqlite::SqliteOptions options;
  options.data_dir = dir.path();
  options.replay_writes = true;
  auto store = sqlite::SqliteStore::Open(options);
  PC_ASSERT_OK(store);
  HashEmbedder embedder;
  MemoryService memory(**store, ServiceLimits{}, &embedder);
  SearchService search(**store, &embedder);
  auto scope = memory.CreateScope("project:replayed");
  PC_ASSERT_OK(scope);
  const std::string id = scope->scope.scope_id;
  auto a = memory.Remember({id, "fact", "The importer reads CSV files.", "", "t", {}});
  PC_ASSERT_OK(a);
  EXPECT_TRUE(a->changed);
  EXPECT_EQ(a->memory.revision, 1);
  auto dup = memory.Remember({id, "fact", "The importer  reads CSV files.", "", "t", {}});
  PC_ASSERT_OK(dup);
  EXPECT_FALSE(dup->changed);
  EXPECT_FALSE(dup->entry.has_value()) << "a replayed duplicate kept the first run's entry";
  auto b = memory.Remember({id, "decision", "Amounts are stored as integer cents.", "", "t", {}});
  PC_ASSERT_OK(b);
  Citation at_head = *a->citation;
  at_head.memory = b->memory;  // the same version, cited at the head
  auto revised =
      memory.Revise({id, at_head, "The importer reads CSV and TSV files.", std::nullopt, "", "t"});
  PC_ASSERT_OK(revised);
  EXPECT_EQ(revised->memory.revision, 3);
  EXPECT_EQ(revised->entry->version, 2);
  Citation b_at_head = *b->citation;
  b_at_head.memory = revised->memory;
  PC_ASSERT_OK(memory.Retire({id, b_at_head, "superseded", "t"}));
  PC_ASSERT_OK((*store)->Read([&](ReadTxn& txn) -> Status {
    auto state = txn.GetVectorState(scope->scope.memory_artifact_id);
    if (!state.ok()) return state.status();
    EXPECT_EQ(state->profile, embedder.profile().Key());
    EXPECT_EQ(state->missing, 0);
    auto revisions = txn.ListRevisions(scope->scope.memory_artifact_id, 0, 10);
    if (!revisions.ok()) return revisions.status();
    EXPECT_EQ(revisions->size(), 4u);
    for (const RevisionInfo& r : *revisions) EXPECT_EQ(r.changes.size(), 1u);
    return Status::Ok();
  }));
  for (SearchMode mode : {SearchMode::kVector, SearchMode::kFts, SearchMode::kHybrid}) {
    auto hits = search.Search({id, "CSV and TSV", mode, 10, false, std::nullopt, false});
    PC_ASSERT_OK(hits);
    ASSERT_EQ(hits->hits.size(), 1u);
    EXPECT_EQ(hits->hits[0].item.version.entry_version_id, revised->entry->entry_version_id);
  }
  EXPECT_GE((*store)->group_stats().reruns, 5u);
}

// Checkpoints run on their own thread (and, when it cannot keep up, between groups): the
// write-ahead log stays bounded however long the writes go on. ~20 pages a remember: 3,000 of
// them write ~240 MB of log without checkpoints.
TEST(GroupCommit, TheWriteAheadLogStaysBounded) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's write-ahead log";
  testing::Fixture f;
  std::string scope = f.NewScope();
  for (int i = 0; i < 3000; ++i)
    PC_ASSERT_OK(
        f.memory->Remember({scope, "fact", "entry number " + std::to_string(i), "", "t", {}}));
  const auto wal = std::filesystem::file_size(f.dir.path() + "/powercontext.db-wal");
  EXPECT_LT(wal, uintmax_t{(8 + 2) * sqlite::kCheckpointFrames * 4200});
  EXPECT_GT(std::filesystem::file_size(f.dir.path() + "/powercontext.db"), uintmax_t{1} << 20)
      << "nothing was checkpointed into the database";
}

// A hook that holds the first call it is told to (`Holds`) until the test lets it go: the log's
// sync (SQLite) or the WAL flush (PostgreSQL) that answers a group's writers.
class HeldHook {
 public:
  std::function<void(uint64_t)> Holds(std::function<bool(uint64_t covers)> which) {
    return [this, which](uint64_t covers) {
      std::unique_lock<std::mutex> lock(mu_);
      if (held_ || !which(covers)) return;
      held_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
    };
  }
  bool WaitHeld() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return held_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  std::mutex mu_;  // also for a test's own waits (a write held in its callback)
  std::condition_variable cv_;

 private:
  bool held_ = false, released_ = false;
};

std::future<Result<WriteOutcome>> RememberAsync(MemoryService& memory, const std::string& scope,
                                                const std::string& text) {
  return std::async(std::launch::async, [&memory, scope, text] {
    return memory.Remember({scope, "fact", text, "", "", {}});
  });
}

// The scope's entries, once there are `n` of them (or what there are after 30 s).
size_t WaitForEntries(MemoryService& memory, const std::string& scope, size_t n) {
  size_t seen = 0;
  for (int i = 0; i < 3000 && seen < n; ++i) {
    auto listed = memory.ListEntries({scope, std::nullopt, false, {10, ""}});
    EXPECT_TRUE(listed.ok());
    seen = listed.ok() ? listed->items.size() : 0;
    if (seen < n) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return seen;
}

// A write whose sync (or flush) `hook` holds is not answered meanwhile, and the scope's next write
// commits meanwhile; both are answered once it is let go.
void ExpectTheNextCommitsWhileHeld(MemoryService& memory, const std::string& scope,
                                   HeldHook& hook) {
  auto first = RememberAsync(memory, scope, "The first write waits to be made durable.");
  ASSERT_TRUE(hook.WaitHeld()) << "the write was answered without a sync";
  EXPECT_EQ(first.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "a write was answered before its sync";
  auto second = RememberAsync(memory, scope, "The scope's next write commits during it.");
  EXPECT_EQ(WaitForEntries(memory, scope, 2), 2u)
      << "the scope's next write could not commit while a sync ran";
  hook.Release();
  EXPECT_TRUE(first.get().ok());
  EXPECT_TRUE(second.get().ok());
}

// A data directory with one scope, made by a store opened and closed before the test's own.
std::string ScopeIn(const testing::TempDir& dir) {
  sqlite::SqliteOptions options;
  options.data_dir = dir.path();
  auto store = sqlite::SqliteStore::Open(options);
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return "";
  auto created = MemoryService(**store, {}).CreateScope("project:sync");
  EXPECT_TRUE(created.ok());
  return created.ok() ? created->scope.scope_id : "";
}

// A store on `dir` whose log syncs `hook` holds when `when` says so.
Result<std::unique_ptr<sqlite::SqliteStore>> OpenHeld(const testing::TempDir& dir, HeldHook& hook,
                                                      std::function<bool(uint64_t)> when) {
  sqlite::SqliteOptions options;
  options.data_dir = dir.path();
  options.before_log_sync = hook.Holds(std::move(when));
  return sqlite::SqliteStore::Open(options);
}

// Durability::kFull (sqlite_store.h, "The log's sync"): a write is answered only once the log is
// synced after its commit, and the writer's turn is passed on before that sync, so the next write
// commits while it runs.
TEST(GroupCommit, AWriteIsAnsweredAfterItsSyncAndTheNextCommitsMeanwhile) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's write-ahead log";
  testing::TempDir dir;
  const std::string scope = ScopeIn(dir);
  HeldHook hook;
  auto store = OpenHeld(dir, hook, [](uint64_t) { return true; });
  PC_ASSERT_OK(store);
  MemoryService memory(**store, {});
  ExpectTheNextCommitsWhileHeld(memory, scope, hook);
}

// A write that another leads in its group is answered only after that group's sync, too.
TEST(GroupCommit, AWriteInAnothersGroupIsAnsweredAfterTheSync) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's write-ahead log";
  testing::TempDir dir;
  const std::string scope = ScopeIn(dir);
  HeldHook hook;
  auto store = OpenHeld(dir, hook, [](uint64_t covers) { return covers >= 2; });
  PC_ASSERT_OK(store);
  MemoryService memory(**store, {});
  // Commit 1 leads alone and holds the writer's turn until the two writes below have queued.
  bool go = false;
  auto first = std::async(std::launch::async, [&] {
    return (*store)->Write(Actor{"test", "", ""}, [&](WriteTxn&) -> Status {
      std::unique_lock<std::mutex> lock(hook.mu_);
      hook.cv_.wait(lock, [&] { return go; });
      return Status::Ok();
    });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto b = RememberAsync(memory, scope, "Queued behind the first write.");
  auto c = RememberAsync(memory, scope, "Queued too: one of these two leads, the other follows.");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  {
    std::lock_guard<std::mutex> lock(hook.mu_);
    go = true;
  }
  hook.cv_.notify_all();
  ASSERT_TRUE(hook.WaitHeld()) << "the second commit's log was never synced";
  EXPECT_EQ(b.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "a write was answered before its group's sync";
  EXPECT_EQ(c.wait_for(std::chrono::milliseconds(1)), std::future_status::timeout)
      << "a write was answered before its group's sync";
  hook.Release();
  EXPECT_TRUE(first.get().ok());
  EXPECT_TRUE(b.get().ok());
  EXPECT_TRUE(c.get().ok());
  EXPECT_EQ((*store)->group_stats().commits, 2u) << "the two queued writes did not share a group";
}

// A sync that fails leaves its write committed but unconfirmed: the writer is told so, and the
// store refuses every later write until it is opened again.
TEST(GroupCommit, AFailedSyncIsToldAndStopsLaterWrites) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's write-ahead log";
  testing::TempDir dir;
  const std::string scope = ScopeIn(dir);
  {
    sqlite::SqliteOptions options;
    options.data_dir = dir.path();
    options.fail_log_syncs = 1;
    auto store = sqlite::SqliteStore::Open(options);
    PC_ASSERT_OK(store);
    MemoryService memory(**store, {});
    auto unconfirmed = memory.Remember({scope, "fact", "Committed, not confirmed.", "", "", {}});
    ASSERT_FALSE(unconfirmed.ok());
    EXPECT_EQ(unconfirmed.status().code(), Code::kInternal);
    EXPECT_NE(unconfirmed.status().message().find("did not confirm"), std::string::npos)
        << unconfirmed.status().message();
    EXPECT_EQ(WaitForEntries(memory, scope, 1), 1u);  // committed: what the message says
    auto refused = memory.Remember({scope, "fact", "Refused after the failed sync.", "", "", {}});
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.status().message().find("refused until"), std::string::npos);
    // A write is answered after its commit, so one that was refused has nothing left to land:
    // one look (waiting for a second entry would wait out the whole 30 s for nothing).
    EXPECT_EQ(WaitForEntries(memory, scope, 1), 1u);
  }
  sqlite::SqliteOptions options;
  options.data_dir = dir.path();
  auto store = sqlite::SqliteStore::Open(options);
  PC_ASSERT_OK(store);
  MemoryService memory(**store, {});
  PC_ASSERT_OK(memory.Remember({scope, "fact", "Written after a restart.", "", "", {}}));
  EXPECT_EQ(WaitForEntries(memory, scope, 2), 2u);
}

// PostgreSQL: a group's writers are answered after a flush that covers its commit, and the scope's
// next group commits while that flush is held (its row lock was passed on at COMMIT).
TEST(PgGroupCommit, AWriteIsAnsweredAfterItsFlushAndTheScopesNextCommitsMeanwhile) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "runs once, in the main pass";
  PC_REQUIRE_TEST_PG();
  testing::TempPgSchema schema;
  HeldHook hook;
  std::atomic<bool> armed{false};
  pg::PgOptions options;
  options.url = schema.url();
  options.before_flush = hook.Holds([&](uint64_t) { return armed.load(); });
  auto store = pg::PgStore::Open(options);
  PC_ASSERT_OK(store);
  MemoryService memory(**store, {});
  auto created = memory.CreateScope("project:flush");
  PC_ASSERT_OK(created);
  const std::string scope = created->scope.scope_id;
  armed = true;
  ExpectTheNextCommitsWhileHeld(memory, scope, hook);
}

// PostgreSQL: a flush that fails leaves the group committed: its writer is told so (Internal),
// not "nothing was written, retry" (Unavailable), which would write it twice; the next write's
// flush answers it as usual.
TEST(PgGroupCommit, AFailedFlushIsToldAsCommitted) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "runs once, in the main pass";
  PC_REQUIRE_TEST_PG();
  testing::TempPgSchema schema;
  pg::PgOptions options;
  options.url = schema.url();
  options.fail_flushes = 1;
  auto store = pg::PgStore::Open(options);
  PC_ASSERT_OK(store);
  MemoryService memory(**store, {});
  auto created = memory.CreateScope("project:flush-fails");
  ASSERT_FALSE(created.ok()) << "the scope's creation was answered without its flush";
  EXPECT_EQ(created.status().code(), Code::kInternal);
  EXPECT_NE(created.status().message().find("committed but PostgreSQL did not confirm"),
            std::string::npos)
      << created.status().message();
  auto again = memory.CreateScope("project:flush-fails");  // committed: found, not made twice
  PC_ASSERT_OK(again);
  EXPECT_FALSE(again->created);
  PC_ASSERT_OK(
      memory.Remember({again->scope.scope_id, "fact", "After the failed flush.", "", "", {}}));
  EXPECT_EQ(WaitForEntries(memory, again->scope.scope_id, 1), 1u);
}

}  // namespace
}  // namespace pc
