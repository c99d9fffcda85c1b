// A PostgreSQL server's kept gate reads (store/postgres/pg_gate_lists.h) on their own; through
// the store, KeptGateReadsTest (gate_reads_test.cc) compares them with the index on PostgreSQL.
#include "store/postgres/pg_gate_lists.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace pc {
namespace {

// A PostgreSQL server's kept lists (store/postgres/pg_gate_lists.h) on their own: what a
// revision's changes do to them, and when they are not used.
TEST(PgGateLists, ListsFollowChangedDocumentsAndStandForOneRevision) {
  pg::GateLists kept;
  const std::string m = "memory";
  EXPECT_EQ(kept.Revision(m), -1);
  ASSERT_TRUE(kept.Advance(m, -1, 10, {}));
  kept.Put(m, 10, 3, "full", {9, 7, 5});  // its newest 3 of more
  kept.Put(m, 10, 3, "all", {8});         // every document with it
  kept.Put(m, 9, 3, "stale", {1});        // read at another revision: not kept
  std::vector<std::vector<int64_t>> lists;
  std::vector<bool> found;
  auto find = [&](int64_t at) { kept.Find(m, at, 3, {"full", "all", "stale"}, lists, found); };
  find(10);
  EXPECT_EQ(found, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(lists[0], (std::vector<int64_t>{9, 7, 5}));
  find(11);  // not at 11 yet
  EXPECT_EQ(found, (std::vector<bool>{false, false, false}));
  // Revision 11: document 12 written with both terms, 8 revised to lose "all".
  ASSERT_TRUE(kept.Advance(m, 10, 11, {{12, true, {"all", "full"}}, {8, true, {"other"}}}));
  find(11);
  EXPECT_EQ(lists[0], (std::vector<int64_t>{12, 9, 7}));  // 5 is no longer among the newest 3
  EXPECT_EQ(lists[1], (std::vector<int64_t>{12}));
  // Revision 12: 9 retired from a full list: forgotten (what follows 7 is unknown).
  ASSERT_TRUE(kept.Advance(m, 11, 12, {{9, false, {}}}));
  find(12);
  EXPECT_EQ(found, (std::vector<bool>{false, true, false}));
  // An old document revised to hold a term sorts in only where it belongs.
  kept.Put(m, 12, 3, "full", {12, 7, 5});
  ASSERT_TRUE(kept.Advance(m, 12, 13, {{3, true, {"all", "full"}}, {6, true, {"full"}}}));
  find(13);
  EXPECT_EQ(lists[0], (std::vector<int64_t>{12, 7, 6}));
  EXPECT_EQ(lists[1], (std::vector<int64_t>{12, 3}));
  // Versions: a changed active document's is kept as the head's, a retired one's dropped.
  pg::GateLists::Change revised{7, true, {"full"}, {}};
  revised.version.entry_version_id = "ev_7b";
  pg::GateLists::Change retired{12, false, {}, {}};
  kept.PutVersions(m, 13, {{12, EntryVersion{}}, {5, EntryVersion{}}});
  ASSERT_TRUE(kept.Advance(m, 13, 14, {revised, retired}));
  std::vector<std::optional<EntryVersion>> versions;
  kept.FindVersions(m, 14, {7, 12, 5, 99}, versions);
  ASSERT_EQ(versions.size(), 4u);
  EXPECT_TRUE(versions[0] && versions[0]->entry_version_id == "ev_7b");
  EXPECT_FALSE(versions[1]);
  EXPECT_TRUE(versions[2]);
  EXPECT_FALSE(versions[3]);
  kept.FindVersions(m, 13, {7}, versions);  // not at 13 any more
  EXPECT_FALSE(versions[0]);
  find(14);
  EXPECT_FALSE(found[0]) << "12 retired from a full list";
  EXPECT_EQ(lists[1], (std::vector<int64_t>{3})) << "12 retired from a list holding all";
  // Another lookup moved them meanwhile: refused, left as they are.
  EXPECT_FALSE(kept.Advance(m, 12, 15, {}));
  EXPECT_FALSE(kept.Advance(m, 14, 13, {}));  // never backwards
  EXPECT_EQ(kept.Revision(m), 14);
  // Too far behind: they start again, empty.
  ASSERT_TRUE(kept.Advance(m, 14, 14 + pg::GateLists::kMaxCatchUp + 1, {}));
  find(14 + pg::GateLists::kMaxCatchUp + 1);
  EXPECT_EQ(found, (std::vector<bool>{false, false, false}));
}

TEST(PgGateLists, AMemoryPastTheBoundAloneIsForgotten) {
  pg::GateLists kept;
  ASSERT_TRUE(kept.Advance("m", -1, 1, {}));
  std::vector<int64_t> docs(1000);
  for (size_t i = 0; i < docs.size(); ++i) docs[i] = static_cast<int64_t>(docs.size() - i);
  size_t put = 0;
  while (kept.Revision("m") == 1 && put < 2 * pg::GateLists::kMaxListed / docs.size()) {
    kept.Put("m", 1, docs.size(), "t" + std::to_string(put++), docs);
    EXPECT_LE(kept.listed(), pg::GateLists::kMaxListed);
  }
  EXPECT_EQ(kept.Revision("m"), -1) << "never forgotten after " << put << " lists";
}

EntryVersion VersionOf(size_t bytes) {
  EntryVersion v;
  v.text.assign(bytes, 'x');
  return v;
}

// Every changed document's version is kept (it is the next writes' recent candidate), so under
// steady writes they would fill the bound and everything be forgotten at once: a memory's versions
// are bounded by themselves instead, the oldest documents' dropped first.
TEST(PgGateLists, AMemorysVersionsAreBoundedOldestFirst) {
  constexpr size_t kBound = 1 << 14;  // units; versions may hold a quarter
  pg::GateLists kept(kBound);
  ASSERT_TRUE(kept.Advance("m", -1, 1, {}));
  kept.Put("m", 1, 3, "term", {3, 2, 1});
  int64_t revision = 1;
  for (int64_t doc = 10; doc < 2000; ++doc, ++revision) {  // each ~100 units
    pg::GateLists::Change written{doc, true, {"other"}, VersionOf(550)};
    ASSERT_TRUE(kept.Advance("m", revision, revision + 1, {written}));
    ASSERT_LE(kept.listed(), kBound / 4 + 64);
  }
  EXPECT_EQ(kept.Revision("m"), revision) << "the memory is kept, not forgotten";
  std::vector<std::vector<int64_t>> lists;
  std::vector<bool> found;
  kept.Find("m", revision, 3, {"term"}, lists, found);
  EXPECT_TRUE(found[0]) << "its lists are kept";
  std::vector<std::optional<EntryVersion>> versions;
  kept.FindVersions("m", revision, {1999, 1990, 1900, 10}, versions);
  EXPECT_TRUE(versions[0] && versions[0]->text.size() == 550);
  EXPECT_TRUE(versions[1]);
  EXPECT_FALSE(versions[2]) << "~40 versions fit: 1900's was dropped";
  EXPECT_FALSE(versions[3]);
}

// Past the bound, the memories least recently looked up are forgotten first, whole.
TEST(PgGateLists, TheLeastRecentlyUsedMemoryIsForgottenFirst) {
  constexpr size_t kBound = 1 << 12;
  pg::GateLists kept(kBound);
  std::vector<int64_t> docs(100);
  for (size_t i = 0; i < docs.size(); ++i) docs[i] = static_cast<int64_t>(docs.size() - i);
  std::vector<std::vector<int64_t>> lists;
  std::vector<bool> found;
  for (const char* m : {"a", "b", "c"}) {
    ASSERT_TRUE(kept.Advance(m, -1, 1, {}));
    for (int t = 0; t < 10; ++t) kept.Put(m, 1, 100, "t" + std::to_string(t), docs);
  }
  // ~1,160 units each: all three fit. "a" is looked up, so "b" is now the least recent.
  ASSERT_EQ(kept.Revision("b"), 1);
  kept.Find("a", 1, 100, {"t0"}, lists, found);
  ASSERT_TRUE(found[0]);
  ASSERT_TRUE(kept.Advance("d", -1, 1, {}));
  for (int t = 0; t < 10; ++t) kept.Put("d", 1, 100, "t" + std::to_string(t), docs);
  EXPECT_LE(kept.listed(), kBound);
  EXPECT_EQ(kept.Revision("b"), -1);
  EXPECT_EQ(kept.Revision("a"), 1);
  EXPECT_EQ(kept.Revision("d"), 1);
  kept.Find("d", 1, 100, {"t9"}, lists, found);
  EXPECT_TRUE(found[0]);
}

// The memory's newest changes (the gate compares them too) follow the revisions: the newer
// changes' documents come first, one per change, and the kept ones fill up to the cap.
TEST(PgGateLists, TheNewestChangesFollowTheRevisions) {
  pg::GateLists kept;
  std::vector<int64_t> recent;
  ASSERT_TRUE(kept.Advance("m", -1, 4, {}));
  EXPECT_FALSE(kept.FindRecent("m", 4, 3, recent)) << "nothing read yet";
  kept.PutRecent("m", 3, 3, {4, 3, 2});  // read at another revision: not kept
  EXPECT_FALSE(kept.FindRecent("m", 4, 3, recent));
  kept.PutRecent("m", 4, 3, {4, 3, 2});
  ASSERT_TRUE(kept.FindRecent("m", 4, 3, recent));
  EXPECT_EQ(recent, (std::vector<int64_t>{4, 3, 2}));
  EXPECT_FALSE(kept.FindRecent("m", 4, 8, recent)) << "kept for another cap";
  // Revisions 5 and 6 changed 7, then 7 again: both changes count.
  ASSERT_TRUE(kept.Advance("m", 4, 6, {}, {7, 7}, 3));
  ASSERT_TRUE(kept.FindRecent("m", 6, 3, recent));
  EXPECT_EQ(recent, (std::vector<int64_t>{7, 7, 4}));
  ASSERT_TRUE(kept.Advance("m", 6, 7, {}, {9, 8, 7}, 3));
  ASSERT_TRUE(kept.FindRecent("m", 7, 3, recent));
  EXPECT_EQ(recent, (std::vector<int64_t>{9, 8, 7}));
  ASSERT_TRUE(kept.Advance("m", 7, 8, {}));  // the changes' documents not read: forgotten
  EXPECT_FALSE(kept.FindRecent("m", 8, 3, recent));
  kept.PutRecent("m", 8, 3, {1});  // a memory with one change in all
  ASSERT_TRUE(kept.Advance("m", 8, 9, {}, {2}, 3));
  ASSERT_TRUE(kept.FindRecent("m", 9, 3, recent));
  EXPECT_EQ(recent, (std::vector<int64_t>{2, 1}));
}

// A server's own revisions (Note): kept beside the lists, followed by the lookup that claims a
// head at or past them, one after another from the lists' revision; the lists never move at a
// note, so a lookup on an older snapshot still finds them at its head.
TEST(PgGateLists, NotedRevisionsAreFollowedInTurnByTheNextClaim) {
  pg::GateLists kept;
  ASSERT_TRUE(kept.Advance("m", -1, 4, {}));
  kept.Put("m", 4, 3, "word", {3, 2});
  kept.PutRecent("m", 4, 2, {3, 2});
  kept.Note("nowhere", 1, {{9, true, {"word"}, {}}});  // no lists kept: nothing
  EXPECT_EQ(kept.Revision("nowhere"), -1);
  kept.Note("m", 5, {{5, true, {"word"}, {}}});
  kept.Note("m", 6, {{6, true, {"other"}, {}}});
  kept.Note("m", 8, {{8, true, {"word"}, {}}});  // 7 was another server's: not after 6
  EXPECT_EQ(kept.Revision("m"), 4) << "a note does not move the lists";
  std::vector<std::vector<int64_t>> lists;
  std::vector<bool> found;
  kept.Find("m", 4, 3, {"word"}, lists, found);
  EXPECT_EQ(lists[0], (std::vector<int64_t>{3, 2})) << "a lookup at 4 still finds them";
  // A lookup at 8 claims: the notes of 5 and 6 are followed; 7 is to be read, so is 8 after it.
  EXPECT_EQ(kept.Claim("m", 8), 6);
  ASSERT_TRUE(
      kept.Advance("m", 6, 8, {{7, true, {"word"}, {}}, {8, true, {"word"}, {}}}, {8, 7}, 2));
  kept.Find("m", 8, 3, {"word"}, lists, found);
  EXPECT_EQ(lists[0], (std::vector<int64_t>{8, 7, 5}));
  std::vector<int64_t> recent;
  ASSERT_TRUE(kept.FindRecent("m", 8, 2, recent));
  EXPECT_EQ(recent, (std::vector<int64_t>{8, 7}));
  // Notes up to the head need no read at all; one older than the lists is not kept.
  kept.Note("m", 7, {{70, true, {"word"}, {}}});
  kept.Note("m", 9, {{9, true, {"word"}, {}}});
  EXPECT_EQ(kept.Claim("m", 9), 9);
  ASSERT_TRUE(kept.Advance("m", 9, 9, {}));
  kept.Find("m", 9, 3, {"word"}, lists, found);
  EXPECT_EQ(lists[0], (std::vector<int64_t>{9, 8, 7}));
  ASSERT_TRUE(kept.FindRecent("m", 9, 2, recent));
  EXPECT_EQ(recent, (std::vector<int64_t>{9, 8}));
  // Past kMaxNoted the newest are not kept: the chain from the lists' revision stays whole.
  for (int64_t r = 10; r < 10 + static_cast<int64_t>(pg::GateLists::kMaxNoted) + 5; ++r)
    kept.Note("m", r, {{r, true, {"word"}, {}}});
  const int64_t last = 9 + static_cast<int64_t>(pg::GateLists::kMaxNoted);
  EXPECT_EQ(kept.Claim("m", last + 5), last);
}

// Lookups at one new head read the changes once: while one reads them (its claim), the others
// wait for it and find the lists at the head.
TEST(PgGateLists, ALookupWaitsForAnotherReadingTheSameChanges) {
  pg::GateLists kept(pg::GateLists::kMaxListed, std::chrono::seconds(30));
  ASSERT_TRUE(kept.Advance("m", -1, 1, {}));
  ASSERT_EQ(kept.Claim("m", 2), 1);  // this one reads revision 2's changes
  int64_t other = 0;
  std::thread waiting([&] { other = kept.Claim("m", 2); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let it find the claim
  ASSERT_TRUE(kept.Advance("m", 1, 2, {{5, true, {"t"}, {}}}));
  waiting.join();
  EXPECT_EQ(other, 2) << "it read the changes again instead of waiting";
  // A claim given up (its read failed) lets a waiting lookup read them itself at once.
  const auto began = std::chrono::steady_clock::now();
  ASSERT_EQ(kept.Claim("m", 3), 2);
  std::thread second([&] { other = kept.Claim("m", 3); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kept.Unclaim("m", 3);
  second.join();
  EXPECT_EQ(other, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(15))
      << "the waiting lookup was not woken";
  ASSERT_TRUE(kept.Advance("m", 2, 3, {}));  // the second's claim, ended
  // A lookup at an older snapshot than the one being read for does not wait: the lists will be
  // past it.
  const auto older = std::chrono::steady_clock::now();
  ASSERT_EQ(kept.Claim("m", 5), 3);
  EXPECT_EQ(kept.Claim("m", 4), 3);
  EXPECT_LT(std::chrono::steady_clock::now() - older, std::chrono::seconds(15))
      << "an older lookup waited for a newer one's read";
  ASSERT_TRUE(kept.Advance("m", 3, 5, {}));
  // One that is slow is not waited for past the wait.
  pg::GateLists quick(pg::GateLists::kMaxListed, std::chrono::milliseconds(1));
  ASSERT_TRUE(quick.Advance("m", -1, 1, {}));
  ASSERT_EQ(quick.Claim("m", 2), 1);
  EXPECT_EQ(quick.Claim("m", 2), 1);
}

}  // namespace
}  // namespace pc
