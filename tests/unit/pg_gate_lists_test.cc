// A PostgreSQL server's kept gate reads (store/postgres/pg_gate_lists.h) on their own; through
// the store, KeptGateReadsTest (gate_reads_test.cc) compares them with the index on PostgreSQL.
#include "store/postgres/pg_gate_lists.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
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

TEST(PgGateLists, EverythingIsForgottenPastTheBound) {
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

}  // namespace
}  // namespace pc
