// What only the PostgreSQL store has (the rest runs in every suite as pg:*): background jobs that
// several servers on one database run once at a time, and group commit for writers of one scope
// on one server, exact across several.
#include "store/postgres/pg_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/ids.h"
#include "model/canonical.h"
#include "search/hash_embedder.h"
#include "search/index_terms.h"
#include "search/text_query.h"
#include "service/core/actor.h"
#include "store/postgres/pg_conn.h"
#include "test_util.h"

namespace pc::testing {
namespace {

// Each test opens stores of its own on a fresh schema of the test cluster.
class PgStore : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestingPostgres()) GTEST_SKIP() << "runs once, in the main pass";
    PC_REQUIRE_TEST_PG();
    schema = std::make_unique<TempPgSchema>();
  }
  // A store of its own on the schema (replaying every write callback when asked), a memory service
  // on it, and one new scope: the set-up of the group tests.
  void OpenWithScope(const std::string& key, bool replay = false) {
    pg::PgOptions options;
    options.url = schema->url();
    options.replay_writes = replay;
    auto opened = pg::PgStore::Open(options);
    PC_ASSERT_OK(opened);
    store = std::move(*opened);
    memory = std::make_unique<MemoryService>(*store, ServiceLimits{}, &embedder);
    auto scope = memory->CreateScope(key);
    PC_ASSERT_OK(scope);
    id = scope->scope.scope_id;
    artifact = scope->scope.memory_artifact_id;
  }
  std::unique_ptr<TempPgSchema> schema;
  HashEmbedder embedder;
  std::unique_ptr<pg::PgStore> store;
  std::unique_ptr<MemoryService> memory;
  std::string id, artifact;
};

TEST_F(PgStore, AJobRunsOnOneServerAtATime) {
  pg::PgOptions options;
  options.url = schema->url();
  auto a = pg::PgStore::Open(options), b = pg::PgStore::Open(options);  // two servers
  PC_ASSERT_OK(a);
  PC_ASSERT_OK(b);
  int ran = 0;
  bool inner = true;
  EXPECT_TRUE((*a)->RunExclusive("backfill", [&] {
    ++ran;
    inner = (*b)->RunExclusive("backfill", [&] { ++ran; });  // the other server, meanwhile
    EXPECT_TRUE((*b)->RunExclusive("scheduled_flush", [&] { ++ran; }))
        << "another job's name is free";
  }));
  EXPECT_FALSE(inner) << "two servers ran one job at once";
  EXPECT_EQ(ran, 2);
  EXPECT_TRUE((*b)->RunExclusive("backfill", [&] { ++ran; })) << "the lock outlived the job";
  EXPECT_EQ(ran, 3);
}

// A job's lock belongs to the memory, not to the database: a server on another schema of the same
// database runs its own backfill meanwhile. (It did not: a parallel test's server holding
// "backfill" made another's start-up pass skip its vectors, and the test waited in vain.)
TEST_F(PgStore, AJobOfAnotherSchemaRunsMeanwhile) {
  TempPgSchema other_schema;
  pg::PgOptions options, other;
  options.url = schema->url();
  other.url = other_schema.url();
  auto a = pg::PgStore::Open(options), b = pg::PgStore::Open(other);
  PC_ASSERT_OK(a);
  PC_ASSERT_OK(b);
  bool inner = false;
  EXPECT_TRUE(
      (*a)->RunExclusive("backfill", [&] { inner = (*b)->RunExclusive("backfill", [] {}); }));
  EXPECT_TRUE(inner) << "a job of one schema waited on another schema's";
}

// --durability normal on PostgreSQL: this server's sessions commit without waiting for the WAL
// flush; full leaves the database's own setting (on by default).
TEST_F(PgStore, DurabilityNormalRelaxesOnlyThisServersCommits) {
  pg::PgOptions options;
  options.url = schema->url();
  auto full = pg::PgStore::Open(options);
  options.relaxed_commit = true;
  auto normal = pg::PgStore::Open(options);
  PC_ASSERT_OK(full);
  PC_ASSERT_OK(normal);
  auto relaxed = (*normal)->SessionSetting("synchronous_commit");
  auto strict = (*full)->SessionSetting("synchronous_commit");
  PC_ASSERT_OK(relaxed);
  PC_ASSERT_OK(strict);
  EXPECT_EQ(*relaxed, "off");
  EXPECT_EQ(*strict, "on");
}

// 16 writers of one scope on each of two servers: every remember gets a revision of its own, none
// missing, and on each server writers shared transactions (one WAL flush and one turn of the
// scope's lock for several revisions).
TEST_F(PgStore, WritersOfOneScopeShareTransactionsAndEachKeepsItsRevision) {
  pg::PgOptions options;
  options.url = schema->url();
  auto a = pg::PgStore::Open(options), b = pg::PgStore::Open(options);
  PC_ASSERT_OK(a);
  PC_ASSERT_OK(b);
  MemoryService on_a(**a, ServiceLimits{}), on_b(**b, ServiceLimits{});
  PC_ASSERT_OK(on_a.Remember({"project:grouped", "fact", "the first entry", "", "t", {}}));
  constexpr int kThreads = 16, kEach = 12;
  std::mutex mu;
  std::set<int64_t> revisions{1};
  std::set<std::string> entries;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      MemoryService& memory = t % 2 ? on_b : on_a;
      for (int i = 0; i < kEach; ++i) {
        auto r = memory.Remember({"project:grouped",
                                  "fact",
                                  "writer " + std::to_string(t) + " says " + std::to_string(i),
                                  "",
                                  "t",
                                  {}});
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        ASSERT_TRUE(r->changed && r->citation);
        std::lock_guard<std::mutex> lock(mu);
        EXPECT_TRUE(revisions.insert(r->memory.revision).second)
            << "two writes answered one revision";
        EXPECT_TRUE(entries.insert(r->citation->entry_id).second);
        EXPECT_EQ(r->citation->memory.revision, r->memory.revision);
      }
    });
  for (auto& th : threads) th.join();
  ASSERT_EQ(revisions.size(), static_cast<size_t>(kThreads * kEach + 1));
  EXPECT_EQ(*revisions.rbegin(), kThreads * kEach + 1) << "revisions have a gap";
  for (auto* store : {a->get(), b->get()}) {
    const auto stats = store->group_stats();
    EXPECT_LT(stats.commits, stats.writes) << "no write shared a transaction";
  }
  // Each answer reads back: every revision added exactly its own entry.
  PC_ASSERT_OK((*b)->Read([&](ReadTxn& txn) -> Status {
    auto scope = txn.FindScopeByKey("project:grouped");
    if (!scope.ok()) return scope.status();
    auto listed = txn.ListRevisions((*scope)->memory_artifact_id, 0, 1000);
    if (!listed.ok()) return listed.status();
    EXPECT_EQ(listed->size(), static_cast<size_t>(kThreads * kEach + 1));
    for (const RevisionInfo& r : *listed) {
      EXPECT_EQ(r.changes.size(), 1u);
      if (r.changes.size() == 1 && r.memory.revision > 1) {
        EXPECT_EQ(entries.count(r.changes[0].entry_id), 1u);
      }
    }
    return Status::Ok();
  }));
}

// Writers of many scopes on one server share transactions too (pg_store.h's shared lanes): 16
// writers, each into a scope of its own, every answer its own revision, no gap in any scope.
TEST_F(PgStore, WritersOfManyScopesShareTransactions) {
  pg::PgOptions options;
  options.url = schema->url();
  auto opened = pg::PgStore::Open(options);
  PC_ASSERT_OK(opened);
  MemoryService memory(**opened, ServiceLimits{});
  constexpr int kThreads = 16, kEach = 10;
  std::vector<std::thread> threads;
  std::vector<std::set<int64_t>> revisions(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = memory.Remember({"project:own-" + std::to_string(t),
                                  "fact",
                                  "writer " + std::to_string(t) + " notes " + std::to_string(i),
                                  "",
                                  "t",
                                  {}});
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_TRUE(revisions[t].insert(r->memory.revision).second);
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(revisions[t].size(), static_cast<size_t>(kEach)) << t;
    if (!revisions[t].empty()) EXPECT_EQ(*revisions[t].rbegin(), kEach) << t;
  }
  const auto stats = (*opened)->group_stats();
  EXPECT_EQ(stats.writes, static_cast<uint64_t>(kThreads * kEach)) << "every write answered once";
  EXPECT_LT(stats.commits * 2, stats.writes) << "scopes' writes did not share transactions";
  EXPECT_EQ(stats.moved, 0u) << "one server's own groups never hold a row another waits for";
  EXPECT_EQ((*opened)->write_retries(), 0u);
}

// Three servers writing four scopes, each writer going round them from another place: groups of
// several scopes lock each scope's row NOWAIT, so none ever waits holding another (a deadlock,
// which PostgreSQL would break after deadlock_timeout, is a lost race here: write_retries counts
// it); a write whose scope another server holds runs again on that scope's own lane. Nothing is
// lost, every scope's revisions are contiguous.
TEST_F(PgStore, ServersWritingSharedScopesInAnyOrderNeverDeadlock) {
  pg::PgOptions options;
  options.url = schema->url();
  std::vector<std::unique_ptr<pg::PgStore>> stores;
  std::vector<std::unique_ptr<MemoryService>> services;
  for (int s = 0; s < 3; ++s) {
    auto opened = pg::PgStore::Open(options);
    PC_ASSERT_OK(opened);
    stores.push_back(std::move(*opened));
    services.push_back(std::make_unique<MemoryService>(*stores.back(), ServiceLimits{}));
  }
  constexpr int kScopes = 4, kThreads = 18, kEach = 12;
  for (int k = 0; k < kScopes; ++k)
    PC_ASSERT_OK(services[0]->CreateScope("project:shared-" + std::to_string(k)));
  std::mutex mu;
  std::vector<std::set<int64_t>> revisions(kScopes);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const int k = (t + (t % 2 ? i : kScopes * kEach - i)) % kScopes;
        auto r = services[t % 3]->Remember(
            {"project:shared-" + std::to_string(k),
             "fact",
             "writer " + std::to_string(t) + " round " + std::to_string(i),
             "",
             "t",
             {}});
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        std::lock_guard<std::mutex> lock(mu);
        EXPECT_TRUE(revisions[k].insert(r->memory.revision).second) << "one revision twice";
      }
    });
  for (auto& th : threads) th.join();
  size_t total = 0;
  for (int k = 0; k < kScopes; ++k) {
    total += revisions[k].size();
    if (!revisions[k].empty())
      EXPECT_EQ(*revisions[k].rbegin(), static_cast<int64_t>(revisions[k].size()))
          << "scope " << k << "'s revisions have a gap";
  }
  EXPECT_EQ(total, static_cast<size_t>(kThreads * kEach));
  for (auto& store : stores) EXPECT_EQ(store->write_retries(), 0u) << "a write lost a race";
}

// A scope whose row another transaction holds delays its own writes, not the other scopes' that
// share its lane: its write finds the row locked (NOWAIT), moves to the scope's own lane and
// waits there; the other scope's write commits meanwhile. When the row is let go, the held write
// commits too.
TEST_F(PgStore, AScopeLockedElsewhereHoldsUpOnlyItsOwnWrites) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:held"));
  // Another scope on the same shared lane (the lane is chosen by the hash of the scope's name).
  std::string other;
  for (int i = 0; other.empty(); ++i) {
    const std::string key = "project:free-" + std::to_string(i);
    if (std::hash<std::string>{}(key) % pg::kSharedLanes ==
        std::hash<std::string>{}(std::string("project:held")) % pg::kSharedLanes)
      other = key;
  }
  PC_ASSERT_OK(memory->CreateScope(other));
  auto holder = pg::Conn::Open(schema->url());
  PC_ASSERT_OK(holder);
  PC_ASSERT_OK((*holder)->Exec("BEGIN"));
  PC_ASSERT_OK(
      (*holder)->Query("SELECT 1 FROM artifacts WHERE artifact_id = $1 FOR UPDATE", {artifact}));
  auto held = std::async(std::launch::async, [&] {
    return memory->Remember({"project:held", "fact", "written once the row is free", "", "t", {}});
  });
  for (int i = 0; i < 3000 && store->group_stats().moved == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(store->group_stats().moved, 1u) << "the held scope's write did not move";
  auto free = std::async(std::launch::async, [&] {
    return memory->Remember({other, "fact", "written while the other is held", "", "t", {}});
  });
  ASSERT_EQ(free.wait_for(std::chrono::seconds(60)), std::future_status::ready)
      << "the other scope's write waited for the held row";
  auto freed = free.get();
  EXPECT_TRUE(freed.ok()) << freed.status().ToString();
  EXPECT_EQ(held.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout)
      << "the held scope's write did not wait for its row";
  PC_ASSERT_OK((*holder)->Exec("COMMIT"));
  auto done = held.get();
  PC_ASSERT_OK(done);
  EXPECT_EQ(done->memory.revision, 1);
  EXPECT_EQ(store->write_retries(), 0u);
}

// Holds the group `key` for a moment, so that the writes started meanwhile queue up behind it and
// run as one group afterwards.
struct LaneHolder {
  LaneHolder(Store& store, const std::string& key) {
    thread = std::thread([&store, key, this] {
      EXPECT_TRUE(store
                      .WriteFor(key, RequestActor(),
                                [this](WriteTxn&) -> Status {
                                  holding = true;
                                  std::this_thread::sleep_for(std::chrono::milliseconds(300));
                                  return Status::Ok();
                                })
                      .ok());
    });
    while (!holding) std::this_thread::yield();
  }
  ~LaneHolder() { thread.join(); }
  std::atomic<bool> holding{false};
  std::thread thread;
};

Source NewSource(const std::string& scope, const std::string& text) {
  Source s;
  s.source_id = "src_" + std::to_string(std::hash<std::string>{}(text));
  s.scope_id = scope;
  s.kind = "chat";
  s.purpose = kPurposeMemory;
  s.content = text;
  s.metadata_json = "{}";
  return s;
}

// In one group: a write that fails after it wrote (the whole group reruns with savepoints), one
// whose statement fails (PostgreSQL aborts the transaction: the same), and good ones. Each failing
// write leaves nothing; the others keep everything, full text included.
TEST_F(PgStore, AFailingWriteInAGroupFailsAloneAndChangesNothing) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:group"));
  std::vector<Status> results(5, Status::Ok());
  {
    LaneHolder hold(*store, id);
    std::vector<std::thread> writers;
    const char* texts[] = {"alpha kept", "bravo refused", "charlie kept", "delta broken",
                           "echo kept"};
    for (int i = 0; i < 5; ++i) {
      writers.emplace_back([&, i] {
        results[i] = store->WriteFor(id, RequestActor(), [&, i](WriteTxn& txn) -> Status {
          // "delta" names a scope that does not exist: its INSERT fails on the foreign key.
          auto appended = txn.AppendSource(NewSource(i == 3 ? "scp_missing" : id, texts[i]));
          if (!appended.ok()) return appended.status();
          return i == 1 ? InvalidArgument("refused after writing") : Status::Ok();
        });
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // queued in this order
    }
    for (auto& w : writers) w.join();
  }
  EXPECT_TRUE(results[0].ok() && results[2].ok() && results[4].ok());
  EXPECT_EQ(results[1].code(), Code::kInvalidArgument);
  EXPECT_FALSE(results[3].ok());
  EXPECT_NE(results[3].code(), Code::kUnavailable) << "a broken statement is not a lost race";
  const auto stats = store->group_stats();
  EXPECT_GE(stats.reruns, 1u) << "the failing writes did not share a group";
  EXPECT_LT(stats.commits, stats.writes);
  PC_ASSERT_OK(store->Read([&](ReadTxn& txn) -> Status {
    auto log = txn.ListSources(id, 0, 10);
    if (!log.ok()) return log.status();
    EXPECT_EQ(log->size(), 3u);
    for (size_t i = 0; i < log->size(); ++i) {
      EXPECT_EQ((*log)[i].position, static_cast<int64_t>(i + 1)) << "positions have no gap";
      EXPECT_EQ((*log)[i].content.find("kept") != std::string::npos, true) << (*log)[i].content;
    }
    for (const char* word : {"alpha", "charlie", "echo", "bravo", "delta"}) {
      auto hits = txn.SearchSources(id, BuildTextQuery(word), 5);
      if (!hits.ok()) return hits.status();
      const std::string w = word;
      EXPECT_EQ(hits->size(), w == "bravo" || w == "delta" ? 0u : 1u) << word;
    }
    return Status::Ok();
  }));
}

// A write of a group that lost a race (a lost race's SQLSTATE) is rolled back alone and runs again
// after the others committed; nobody sees an error.
TEST_F(PgStore, AWriteThatLostARaceInAGroupRunsAgain) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:race"));
  std::atomic<int> racer_runs{0};
  std::vector<Status> results(3, Status::Ok());
  {
    LaneHolder hold(*store, id);
    std::vector<std::thread> writers;
    for (int i = 0; i < 3; ++i) {
      writers.emplace_back([&, i] {
        results[i] = store->WriteFor(id, RequestActor(), [&, i](WriteTxn& txn) -> Status {
          auto appended = txn.AppendSource(NewSource(id, "write " + std::to_string(i)));
          if (!appended.ok()) return appended.status();
          // Lost in the group's first pass and again in its savepoint pass: it runs a third time.
          if (i == 1 && racer_runs++ < 2)
            return Internal("deadlock detected").WithDetail("sqlstate", "40P01");
          return Status::Ok();
        });
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (auto& w : writers) w.join();
  }
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_GE(racer_runs, 3);  // more when every callback is replayed (the replay: suite)
  EXPECT_EQ(store->write_retries(), 1u);
  PC_ASSERT_OK(store->Read([&](ReadTxn& txn) -> Status {
    auto log = txn.ListSources(id, 0, 10);
    if (!log.ok()) return log.status();
    EXPECT_EQ(log->size(), 3u);
    if (log->size() == 3) {
      EXPECT_EQ((*log)[2].content, "write 1") << "the racer ran again last";
    }
    return Status::Ok();
  }));
}

// A revision adding one entry at the memory's head + 1, inside a write: its entry id.
Result<std::string> AddEntry(WriteTxn& txn, const std::string& artifact, const std::string& text) {
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, txn.FindArtifact(artifact));
  if (!memory) return NotFound("no memory");
  NewRevision rev;
  rev.info.memory = MemoryRef{kMemoryFamily, artifact, memory->head_revision + 1};
  rev.info.actor = "test";
  rev.info.created_at_ms = NowMillis();
  EntryVersion v;
  v.entry_id = NewId(kEntryPrefix);
  v.entry_version_id = NewId(kEntryVersionPrefix);
  v.version = 1;
  v.kind = "fact";
  v.text = text;
  v.content_hash = ContentHash(v.kind, v.text).value();
  v.created_by_revision = rev.info.memory.revision;
  v.created_at_ms = rev.info.created_at_ms;
  rev.info.changes.push_back({ChangeOp::kAdd, v.entry_id, std::nullopt, v.entry_version_id});
  rev.manifest.push_back({v.entry_id, v.entry_version_id, true});
  rev.new_versions.push_back(v);
  PC_RETURN_IF_ERROR(txn.CommitRevision(rev));
  return v.entry_id;
}

std::set<std::string> ChangedIds(WriteTxn& txn, const std::string& artifact, int64_t after) {
  std::set<std::string> out;
  auto memory = txn.FindArtifact(artifact);
  if (!memory.ok() || !*memory) return {"(no memory)"};
  auto items = txn.ChangedItems(artifact, after, (*memory)->head_revision);
  if (!items.ok()) return {"(" + items.status().message() + ")"};
  for (const ManifestItem& m : *items)
    out.insert(m.version.entry_id + " " + m.version.entry_version_id + " " +
               std::to_string(m.version.created_by_revision) + " " + (m.active ? "+" : "-") +
               m.version.text);
  return out;
}

// The gate's catch-up reads (ChangedItems) of a group's writes are kept for the group's next
// writes (ChangedLinesMemo), and brought along by their own revisions: each still answers for its
// own head, line for line as a fresh read. Here a write adds an entry and reads, then fails (the
// group reruns with savepoints and rolls it back); the next write adds another entry at the same
// revision number, and must see that one, not the undone.
TEST_F(PgStore, ChangedItemsInAGroupAnswerForEachWritesHead) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:changed"));
  PC_ASSERT_OK(memory->Remember({id, "fact", "Before the group.", "", "", {}}));
  std::vector<std::set<std::string>> seen(4);
  std::string undone, kept;
  std::vector<Status> results(4, Status::Ok());
  {
    LaneHolder hold(*store, id);
    std::vector<std::thread> writers;
    for (int i = 0; i < 4; ++i) {
      writers.emplace_back([&, i] {
        results[i] = store->WriteFor(id, RequestActor(), [&, i](WriteTxn& txn) -> Status {
          if (i == 2) (void)ChangedIds(txn, artifact, 0);  // read, then brought along
          if (i == 1 || i == 2) {
            PC_ASSIGN_OR_RETURN(std::string added,
                                AddEntry(txn, artifact, i == 1 ? "Undone again." : "Kept."));
            (i == 1 ? undone : kept) = added;
          }
          seen[i] = ChangedIds(txn, artifact, 0);
          return i == 1 ? InvalidArgument("refused after writing") : Status::Ok();
        });
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // queued in this order
    }
    for (auto& w : writers) w.join();
  }
  EXPECT_TRUE(results[0].ok() && results[2].ok() && results[3].ok());
  EXPECT_EQ(results[1].code(), Code::kInvalidArgument);
  EXPECT_GE(store->group_stats().reruns, 1u) << "the failing write did not share a group";
  auto has = [](const std::set<std::string>& lines, const std::string& entry) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.rfind(entry + " ", 0) == 0; });
  };
  EXPECT_EQ(seen[0].size(), 1u);
  EXPECT_TRUE(has(seen[1], undone));
  EXPECT_TRUE(has(seen[2], kept));
  EXPECT_FALSE(has(seen[2], undone)) << "a write saw a rolled-back entry";
  EXPECT_EQ(seen[3], seen[2]);
  PC_ASSERT_OK(store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    EXPECT_EQ(ChangedIds(txn, artifact, 0), seen[2]) << "as a fresh read after the commit";
    return Status::Ok();
  }));
}

// A write that locked the memory has its scope's settings read with the lock (FindArtifact); one
// it changes afterwards is what it reads next, as every read of a transaction sees its writes.
TEST_F(PgStore, AWriteReadsTheSettingItChanged) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:settings"));
  PC_ASSERT_OK(store->WriteFor(id, RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, txn.FindArtifact(artifact));
    EXPECT_TRUE(memory.has_value());
    PC_ASSIGN_OR_RETURN(auto before, txn.ListScopeSettings(id));
    EXPECT_EQ(before.count("reconcile"), 0u);
    PC_RETURN_IF_ERROR(txn.PutScopeSetting(id, "reconcile", std::string("reject")));
    PC_ASSIGN_OR_RETURN(auto after, txn.ListScopeSettings(id));
    EXPECT_EQ(after["reconcile"], "reject");
    PC_ASSIGN_OR_RETURN(memory, txn.FindArtifact(artifact));  // read again with the lock
    PC_ASSIGN_OR_RETURN(auto again, txn.ListScopeSettings(id));
    EXPECT_EQ(again["reconcile"], "reject");
    return Status::Ok();
  }));
}

// Finding a scope reads its settings in the same statement (one row a setting): the scope is
// found once however many it has, a read's settings are the scope's own, and ListScopes still
// lists each scope once.
TEST_F(PgStore, AScopeIsFoundOnceWithItsSettings) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:with-settings"));
  auto bare = memory->CreateScope("project:without-settings");
  PC_ASSERT_OK(bare);
  const std::string bare_id = bare->scope.scope_id;
  PC_ASSERT_OK(store->WriteFor(id, RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_RETURN_IF_ERROR(txn.PutScopeSetting(id, "reconcile", std::string("reject")));
    return txn.PutScopeSetting(id, "max_entry_bytes", std::string("2048"));
  }));
  PC_ASSERT_OK(store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> found, txn.FindScopeByKey("project:with-settings"));
    EXPECT_EQ(found ? found->scope_id : "", id);
    PC_ASSIGN_OR_RETURN(auto settings, txn.ListScopeSettings(id));
    EXPECT_EQ(settings, (std::map<std::string, std::string>{{"max_entry_bytes", "2048"},
                                                            {"reconcile", "reject"}}));
    PC_ASSIGN_OR_RETURN(found, txn.FindScope(bare_id));
    EXPECT_TRUE(found.has_value());
    PC_ASSIGN_OR_RETURN(auto none, txn.ListScopeSettings(bare_id));
    EXPECT_TRUE(none.empty()) << "the other scope's settings were kept";
    PC_ASSIGN_OR_RETURN(auto again, txn.ListScopeSettings(id));  // not the last one found
    EXPECT_EQ(again.size(), 2u);
    PC_ASSIGN_OR_RETURN(std::vector<Scope> listed, txn.ListScopes("", 10));
    EXPECT_EQ(listed.size(), 2u);
    return Status::Ok();
  }));
  // A write that found the scope with its lock reads the setting it changes afterwards.
  PC_ASSERT_OK(store->WriteFor(id, RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> found, txn.FindScope(id));
    EXPECT_TRUE(found.has_value());
    PC_RETURN_IF_ERROR(txn.PutScopeSetting(id, "reconcile", std::nullopt));
    PC_ASSIGN_OR_RETURN(auto after, txn.ListScopeSettings(id));
    EXPECT_EQ(after, (std::map<std::string, std::string>{{"max_entry_bytes", "2048"}}));
    return Status::Ok();
  }));
}

// On a small machine a PostgreSQL remember costs its round trips (docs/benchmarks.md), so each is
// counted. Into a scope with entries, default gates, no embedder: the lookup before the write
// waits for 4 (the scope with its settings, the index's totals, the gate lists' catch-up in one,
// the term lists; its COMMIT is sent without waiting), the write for 3 (the lock with the
// exact-duplicate check, the head's compare-and-set, its rows with the COMMIT), and the flush that
// answers it for 1. An embedder adds one to each: the candidates' vectors (one statement for them
// all), and the memory's vector state. A read waits once; the transaction it did not wait to end
// is over (the next read sees a later write).
TEST_F(PgStore, ARememberWaitsForFewRoundTrips) {
  if (const char* replay = std::getenv("POWERCONTEXT_TEST_REPLAY_WRITES");
      replay && std::string(replay) == "1")
    GTEST_SKIP() << "counts the round trips of writes run once, not rehearsed";
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:round-trips"));
  MemoryService plain(*store, ServiceLimits{}, nullptr);
  auto other_scope = plain.CreateScope("project:round-trips-plain");
  PC_ASSERT_OK(other_scope);
  const std::string plain_id = other_scope->scope.scope_id;
  auto remember = [&](MemoryService& service, const std::string& scope, int i) -> uint64_t {
    const uint64_t before = store->round_trips();
    EXPECT_TRUE(service
                    .Remember({scope,
                               "fact",
                               "Round trip fact " + std::to_string(i) + " about the importer.",
                               "",
                               "",
                               {}})
                    .ok());
    return store->round_trips() - before;
  };
  for (int i = 0; i < 4; ++i) {  // the gate lists kept, statements prepared, from here on
    remember(*memory, id, i);
    remember(plain, plain_id, i);
  }
  const uint64_t with_vectors = remember(*memory, id, 4), without = remember(plain, plain_id, 4);
  // Its gate lookup reads nothing for the remember before it (this server wrote it, and its gate
  // lists followed it: GateLists::Note; one round trip more without) and takes the memory's
  // full-text totals with its scope (one more without).
  EXPECT_LE(without, 6u) << "a remember waited for " << without << " round trips";
  EXPECT_LE(with_vectors, 8u) << "with an embedder, " << with_vectors;
  std::cout << "[ remember ] " << without << " round trips, " << with_vectors
            << " with an embedder\n";

  auto head = [&]() -> int64_t {
    int64_t revision = -1;
    EXPECT_TRUE(store
                    ->Read([&](ReadTxn& txn) -> Status {
                      PC_ASSIGN_OR_RETURN(std::optional<Artifact> found,
                                          txn.FindArtifact(artifact));
                      if (found) revision = found->head_revision;
                      return Status::Ok();
                    })
                    .ok());
    return revision;
  };
  const uint64_t before = store->round_trips();
  const int64_t seen = head();
  EXPECT_EQ(store->round_trips() - before, 1u) << "a one-statement read";
  pg::PgOptions options;
  options.url = schema->url();
  auto other = pg::PgStore::Open(options);  // another server
  PC_ASSERT_OK(other);
  MemoryService elsewhere(**other, ServiceLimits{}, &embedder);
  PC_ASSERT_OK(elsewhere.Remember({id, "fact", "Written by the other server.", "", "", {}}));
  EXPECT_EQ(head(), seen + 1) << "a read saw an old snapshot: the last one did not end";
}

// A revise or a retire removes a document's postings by the primary key, from the terms of the
// text it indexed (there is no index by document: PgTxn::RemoveEntryTextDoc): afterwards the
// memory's postings are exactly its head's, each entry's document holding its head text's terms.
TEST_F(PgStore, ARevisedOrRetiredEntryKeepsOnlyItsHeadTextsPostings) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:postings"));
  auto remember = [&](const std::string& text) {
    auto out = memory->Remember({id, "fact", text, "", "", {}});
    EXPECT_TRUE(out.ok() && out->citation) << testing::Describe(out);
    return out.ok() && out->citation ? *out->citation : Citation{};
  };
  auto head = [&]() { return memory->GetScope(id)->memory_head_revision; };
  const std::string kept_text = "Exports are zipped before upload, every night.",
                    retired_text = "Amounts are integer cents, 导入 in UTC.";
  const Citation kept = remember(kept_text);
  const Citation revised = remember("The importer reads CSV files with a header row.");
  const Citation retired = remember(retired_text);
  ReviseRequest revise;
  revise.scope_id = id;
  revise.citation = revised;
  revise.citation.memory.revision = head();
  revise.text = "The importer reads Parquet files; 中文 headers are allowed.";
  PC_ASSERT_OK(memory->Revise(revise));
  RetireRequest retire;
  retire.scope_id = id;
  retire.citation = retired;
  retire.citation.memory.revision = head();
  retire.reason = "superseded";
  PC_ASSERT_OK(memory->Retire(retire));
  // What the postings should be: each entry's head text's terms (a retired entry's stay, its
  // document marked retired, as SQLite's index keeps it).
  std::map<std::string, std::set<std::string>> expected;  // entry_id -> terms
  auto terms_of = [&](const std::string& entry_id, const std::string& text) {
    for (const auto& [term, at] : IndexTerms(text).positions) expected[entry_id].insert(term);
  };
  terms_of(kept.entry_id, kept_text);
  terms_of(revised.entry_id, revise.text);
  terms_of(retired.entry_id, retired_text);
  auto conn = pg::Conn::Open(schema->url());
  PC_ASSERT_OK(conn);
  auto rows = (*conn)->Query(
      "SELECT e.entry_id, p.term FROM text_postings p JOIN entries e ON e.doc = p.doc"
      " WHERE p.kind = 0 AND p.owner = $1",
      {artifact});
  PC_ASSERT_OK(rows);
  std::map<std::string, std::set<std::string>> found;
  for (int i = 0; i < rows->size(); ++i) found[rows->Text(i, 0)].insert(rows->Text(i, 1));
  EXPECT_EQ(found, expected);
  auto stats = (*conn)->Query(
      "SELECT docs, retired, tokens = (SELECT sum(tokens) FROM text_docs WHERE kind = 0"
      " AND owner = $1) FROM text_stats WHERE kind = 0 AND owner = $1",
      {artifact});
  PC_ASSERT_OK(stats);
  ASSERT_EQ(stats->size(), 1);
  EXPECT_EQ(stats->Int(0, 0), 3);
  EXPECT_EQ(stats->Int(0, 1), 1);
  EXPECT_EQ(stats->Text(0, 2), "t");
}

// A retire keeps the entry's version and so its document's terms: only the document's flag and the
// totals' retired count change; its postings are the same rows (their xmin: not deleted and added
// again). Full text then leaves it out, and finds it when asked for inactive entries too.
TEST_F(PgStore, ARetireMarksItsDocumentWithoutRewritingItsPostings) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:retire-postings"));
  const std::string text = "Backups are encrypted with the team key before upload.";
  auto out = memory->Remember({id, "fact", text, "", "", {}});
  ASSERT_TRUE(out.ok() && out->citation) << testing::Describe(out);
  PC_ASSERT_OK(memory->Remember({id, "fact", "Releases are tagged from main only.", "", "", {}}));
  auto conn = pg::Conn::Open(schema->url());
  PC_ASSERT_OK(conn);
  auto postings = [&]() {
    auto rows = (*conn)->Query(
        "SELECT p.term || ' ' || p.xmin::text FROM text_postings p JOIN entries e ON e.doc = p.doc"
        " WHERE p.kind = 0 AND p.owner = $1 AND e.entry_id = $2 ORDER BY p.term",
        {artifact, out->citation->entry_id});
    EXPECT_TRUE(rows.ok());
    std::vector<std::string> found;
    for (int i = 0; rows.ok() && i < rows->size(); ++i) found.push_back(rows->Text(i, 0));
    return found;
  };
  auto flag_and_totals = [&]() {
    auto rows = (*conn)->Query(
        "SELECT d.retired::text || ' ' || s.docs || ' ' || s.retired || ' ' || s.tokens"
        " FROM text_docs d JOIN entries e ON e.doc = d.doc JOIN text_stats s"
        " ON s.kind = d.kind AND s.owner = d.owner"
        " WHERE d.kind = 0 AND d.owner = $1 AND e.entry_id = $2",
        {artifact, out->citation->entry_id});
    EXPECT_TRUE(rows.ok() && rows->size() == 1);
    return rows.ok() && rows->size() == 1 ? rows->Text(0, 0) : std::string();
  };
  const std::vector<std::string> before = postings();
  ASSERT_FALSE(before.empty());
  const std::string tokens = std::to_string(
      IndexTerms(text).length + IndexTerms("Releases are tagged from main only.").length);
  EXPECT_EQ(flag_and_totals(), "false 2 0 " + tokens);
  RetireRequest retire;
  retire.scope_id = id;
  retire.citation = *out->citation;
  retire.citation.memory.revision = memory->GetScope(id)->memory_head_revision;
  retire.reason = "moved to the vault";
  PC_ASSERT_OK(memory->Retire(retire));
  EXPECT_EQ(postings(), before);
  EXPECT_EQ(flag_and_totals(), "true 2 1 " + tokens);
  PC_ASSERT_OK(store->Read([&](ReadTxn& txn) -> Status {
    for (const bool include_inactive : {false, true}) {
      auto hits =
          txn.SearchText(artifact, BuildTextQuery("encrypted backups"), include_inactive, 5);
      if (!hits.ok()) return hits.status();
      EXPECT_EQ(hits->size(), include_inactive ? 1u : 0u);
      if (include_inactive && hits->size() == 1)
        EXPECT_EQ((*hits)[0].item.version.entry_id, out->citation->entry_id);
    }
    return Status::Ok();
  }));
}

// A read does not wait for its COMMIT's answer, but its session is done with it at once: idle
// (not shown as running the COMMIT until the connection's next use), holding no snapshot.
TEST_F(PgStore, AReadsSessionIsIdleAfterItWithoutWaiting) {
  pg::PgOptions options;
  options.url = schema->url() + "&application_name=" + schema->name();  // this store's sessions
  auto opened = pg::PgStore::Open(options);
  PC_ASSERT_OK(opened);
  store = std::move(*opened);
  PC_ASSERT_OK(store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    return txn.CreateScope("project:idle").status();
  }));
  PC_ASSERT_OK(store->Read(
      [&](ReadTxn& txn) -> Status { return txn.FindScopeByKey("project:idle").status(); }));
  auto admin = pg::Conn::Open(schema->url());
  PC_ASSERT_OK(admin);
  std::string busy = "?";
  for (int i = 0; i < 500 && !busy.empty(); ++i) {  // the server answers in its own time
    if (i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    auto rows = (*admin)->Query(
        "SELECT coalesce(string_agg(state || ' ' || query || ' xmin ' ||"
        " coalesce(backend_xmin::text, '-'), '; '), '') FROM pg_stat_activity"
        " WHERE application_name = $1 AND (state <> 'idle' OR backend_xmin IS NOT NULL)",
        {schema->name()});
    PC_ASSERT_OK(rows);
    busy = rows->Text(0, 0);
  }
  EXPECT_EQ(busy, "") << "the read's session was left busy";
}

// A write alone sends its changes with the COMMIT (one round trip). One whose queued change fails
// there is answered with that failure, keeps nothing it did before it, and leaves the connection
// fit for the next write.
TEST_F(PgStore, AWriteAloneFailingWithItsCommitKeepsNothing) {
  pg::PgOptions options;
  options.url = schema->url();
  options.max_write_attempts = 1;  // a unique violation is a lost race: answered, not run again
  auto opened = pg::PgStore::Open(options);
  PC_ASSERT_OK(opened);
  store = std::move(*opened);
  PC_ASSERT_OK(store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    return txn.CreateScope("project:taken").status();
  }));
  Status failed = store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_RETURN_IF_ERROR(txn.CreateScope("project:not-kept").status());
    return txn.CreateScope("project:taken").status();  // fails at the database, queued
  });
  EXPECT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("scopes"), std::string::npos) << failed.ToString();
  PC_ASSERT_OK(store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    return txn.CreateScope("project:next").status();
  }));
  PC_ASSERT_OK(store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto not_kept, txn.FindScopeByKey("project:not-kept"));
    EXPECT_FALSE(not_kept.has_value()) << "a failed write kept a scope";
    PC_ASSIGN_OR_RETURN(auto next, txn.FindScopeByKey("project:next"));
    EXPECT_TRUE(next.has_value());
    return Status::Ok();
  }));
}

// Every callback replayed (store.h's contract; POWERCONTEXT_TEST_REPLAY_WRITES=1 switches it on
// for whole suites): grouped remembers, a duplicate, a revise and a retire answer as if run once.
TEST_F(PgStore, GroupedWritesReplayedAnswerAsIfRunOnce) {
  ASSERT_NO_FATAL_FAILURE(OpenWithScope("project:replayed", true));
  std::vector<Result<WriteOutcome>> results(6, Status(Code::kInternal, ""));
  {
    LaneHolder hold(*store, id);
    std::vector<std::thread> writers;
    for (int i = 0; i < 6; ++i)
      writers.emplace_back([&, i] {
        // Two of them say the same: one adds it, the other is its duplicate.
        results[i] = memory->Remember(
            {id,
             "fact",
             i == 5 ? "Replayed entry 4." : "Replayed entry " + std::to_string(i) + ".",
             "",
             "t",
             {}});
      });
    for (auto& w : writers) w.join();
  }
  std::set<int64_t> revisions;
  int duplicates = 0;
  for (auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (!r->changed) {
      ++duplicates;
      EXPECT_FALSE(r->entry.has_value()) << "a replayed duplicate kept the first run's entry";
      continue;
    }
    EXPECT_TRUE(revisions.insert(r->memory.revision).second);
  }
  EXPECT_EQ(duplicates, 1);
  EXPECT_EQ(revisions, (std::set<int64_t>{1, 2, 3, 4, 5}));
  auto first = std::find_if(results.begin(), results.end(), [](auto& r) { return r->changed; });
  Citation at_head = *(*first)->citation;
  at_head.memory.revision = 5;
  auto revised = memory->Revise({id, at_head, "Replayed and revised.", std::nullopt, "", "t"});
  PC_ASSERT_OK(revised);
  EXPECT_EQ(revised->memory.revision, 6);
  EXPECT_EQ(revised->entry->version, 2);
  Citation again = *revised->citation;
  PC_ASSERT_OK(memory->Retire({id, again, "done", "t"}));
  PC_ASSERT_OK(store->Read([&](ReadTxn& txn) -> Status {
    auto state = txn.GetVectorState(artifact);
    if (!state.ok()) return state.status();
    EXPECT_EQ(state->missing, 0);
    auto listed = txn.ListRevisions(artifact, 0, 10);
    if (!listed.ok()) return listed.status();
    EXPECT_EQ(listed->size(), 7u);
    for (const RevisionInfo& r : *listed) EXPECT_EQ(r.changes.size(), 1u);
    auto hits = txn.SearchText(artifact, BuildTextQuery("replayed"), false, 10);
    if (!hits.ok()) return hits.status();
    EXPECT_EQ(hits->size(), 4u) << "five added, one of them revised then retired";
    return Status::Ok();
  }));
  EXPECT_GE(store->group_stats().reruns, 4u) << "the writes were not replayed";
}

}  // namespace
}  // namespace pc::testing
