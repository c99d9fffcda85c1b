// Group commit (store/sqlite/sqlite_store.h): concurrent writes share transactions and fsyncs,
// yet each keeps its own revision and answer, and conflicts come out exactly as one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

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
        auto r = f.memory->Remember({scope, "fact", "thread " + std::to_string(t) + " item " + std::to_string(i), "", "t", {}});
        if (!r.ok()) {
          ++failed;
          continue;
        }
        std::lock_guard<std::mutex> lock(mu);
        EXPECT_TRUE(revisions.insert(r->memory.revision).second) << "two writes answered one revision";
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
  auto stats = f.store->group_stats();
  EXPECT_LT(stats.commits, stats.writes) << "no write shared a commit";
  // Full-text rows are written once per group, after its writes: every entry is found by its text.
  for (int t = 0; t < kThreads; t += 5) {
    auto found = f.store->Read([&](ReadTxn& txn) -> Status {
      auto scope_row = txn.FindScope(scope);
      if (!scope_row.ok()) return scope_row.status();
      auto hits = txn.SearchText((*scope_row)->memory_artifact_id,
                                 BuildTextQuery("thread " + std::to_string(t) + " item 7"), false, 3);
      if (!hits.ok()) return hits.status();
      const std::string want = "thread " + std::to_string(t) + " item 7";  // ties with "thread 7 item t"
      EXPECT_TRUE(std::any_of(hits->begin(), hits->end(),
                              [&](const ReadTxn::TextHit& h) { return h.item.version.text == want; }))
          << want;
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
  constexpr int kThreads = 16;
  std::atomic<int> won{0}, conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Everyone believes the memory is empty; exactly one can be right.
      auto r = f.memory->Remember({scope, "fact", "claim " + std::to_string(t), "", "t", int64_t{0}});
      if (r.ok()) ++won;
      else if (r.status().code() == Code::kConflict) ++conflicts;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(won, 1);
  EXPECT_EQ(conflicts, kThreads - 1);
  EXPECT_EQ(f.memory->GetScope(scope)->memory_head_revision, 1);

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
        if (i % 2) r = f.memory->Revise({scope, *base->citation, "stale " + std::to_string(t * 100 + i), std::nullopt, "", "t"});
        else r = f.memory->Remember({scope, "fact", "good " + std::to_string(t * 100 + i), "", "t", {}});
        if (r.ok() && r->changed) ++added;
        else ++refused;
      }
    });
  for (auto& th : threads) th.join();
  // The first revise may win (its citation was the head) before the adds move the head on.
  EXPECT_GE(added, kThreads * 5);
  EXPECT_LE(added, kThreads * 5 + 1);
  EXPECT_EQ(added + refused, kThreads * 10);
  EXPECT_EQ(f.memory->GetScope(scope)->memory_head_revision, 2 + added);
}

// A write that fails after it changed rows, in a group with others: the group runs again with a
// savepoint per write, so that write leaves nothing and the others keep everything, full text
// included.
TEST(GroupCommit, AWriteFailingAfterChangesIsUndoneAlone) {
  testing::Fixture f;
  std::string scope = f.NewScope("project:group");
  std::atomic<bool> leading{false};
  std::thread leader([&] {  // holds the writer so the others queue up into one group
    PC_ASSERT_OK(f.store->Write([&](WriteTxn&) -> Status {
      leading = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      return Status::Ok();
    }));
  });
  while (!leading) std::this_thread::yield();
  auto append = [&](const std::string& text, bool fail_after) {
    return f.store->Write([&, text, fail_after](WriteTxn& txn) -> Status {
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
  leader.join();
  EXPECT_TRUE(results[0].ok() && results[2].ok() && results[3].ok());
  EXPECT_EQ(results[1].code(), Code::kInvalidArgument);
  EXPECT_EQ(f.store->group_stats().reruns, 1u) << "the refused write did not share a group";
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

// Checkpoints run on their own thread (and, when it cannot keep up, between groups): the
// write-ahead log stays bounded however long the writes go on. ~20 pages a remember: 3,000 of
// them write ~240 MB of log without checkpoints.
TEST(GroupCommit, TheWriteAheadLogStaysBounded) {
  testing::Fixture f;
  std::string scope = f.NewScope();
  for (int i = 0; i < 3000; ++i)
    PC_ASSERT_OK(f.memory->Remember({scope, "fact", "entry number " + std::to_string(i), "", "t", {}}));
  const auto wal = std::filesystem::file_size(f.dir.path() + "/powercontext.db-wal");
  EXPECT_LT(wal, uintmax_t{(8 + 2) * sqlite::kCheckpointFrames * 4200});
  EXPECT_GT(std::filesystem::file_size(f.dir.path() + "/powercontext.db"), uintmax_t{1} << 20)
      << "nothing was checkpointed into the database";
}

}  // namespace
}  // namespace pc
