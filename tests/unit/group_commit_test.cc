// Group commit (store/sqlite/sqlite_store.h): concurrent writes share transactions and fsyncs,
// yet each keeps its own revision and answer, and conflicts come out exactly as one by one.
#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace pc
