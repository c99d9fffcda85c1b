// The reconcile gate's reads kept between writes (store/sqlite/gate_reads.h): the lists follow
// inserted and removed rows exactly, a written row is forgotten, and through the store a write's
// lookup (which uses them on SQLite) always equals a read transaction's (which reads the index),
// whatever was remembered, revised, retired, rolled back or written by another connection since.
#include "store/sqlite/gate_reads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <thread>

#include "service/core/actor.h"
#include "service/memory/memory_service.h"
#include "store/postgres/pg_store.h"
#include "store/sqlite/sqlite_store.h"
#include "test_util.h"

namespace pc {
namespace {

using sqlite::GateReads;

ManifestItem Item(const std::string& version, bool active) {
  ManifestItem i;
  i.version.entry_version_id = version;
  i.active = active;
  return i;
}

TEST(GateReads, ListsFollowInsertsAndRemovalsLikeTheIndex) {
  GateReads kept;
  kept.Put("1:a", 3, {5, 2});     // fewer than the cap: every row
  kept.Put("1:b", 3, {1, 2, 3});  // the first three
  EXPECT_EQ(kept.Find("1:a", 4), nullptr) << "read with another cap";
  EXPECT_EQ(kept.Find("1:c", 3), nullptr);
  EXPECT_EQ(*kept.Find("1:a", 3), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(kept.listed(), 5u);

  kept.Added({"1:a", "1:a", "1:b", "1:z"}, 9);  // b is full and 9 comes after its last
  EXPECT_EQ(*kept.Find("1:a", 3), (std::vector<int64_t>{2, 5, 9}));
  EXPECT_EQ(*kept.Find("1:b", 3), (std::vector<int64_t>{1, 2, 3}));
  kept.Added({"1:a", "1:b"}, 0);  // sorts first: both full, both lose their last
  EXPECT_EQ(*kept.Find("1:a", 3), (std::vector<int64_t>{0, 2, 5}));
  EXPECT_EQ(*kept.Find("1:b", 3), (std::vector<int64_t>{0, 1, 2}));
  kept.Added({"1:a"}, 2);  // already there
  EXPECT_EQ(*kept.Find("1:a", 3), (std::vector<int64_t>{0, 2, 5}));

  kept.Removed({"1:a"}, 7);  // not in the list, after its last: the list stands
  EXPECT_EQ(*kept.Find("1:a", 3), (std::vector<int64_t>{0, 2, 5}));
  kept.Removed({"1:b"}, 1);  // a full list loses a row: its next is unknown, so it is forgotten
  EXPECT_EQ(kept.Find("1:b", 3), nullptr);
  kept.Put("1:c", 3, {4});
  kept.Removed({"1:c"}, 4);  // a list of every row loses one
  EXPECT_TRUE(kept.Find("1:c", 3)->empty());
  EXPECT_EQ(kept.listed(), 3u);
  kept.Clear();
  EXPECT_FALSE(kept.listing());
  EXPECT_EQ(kept.listed(), 0u);
}

TEST(GateReads, ARowIsForgottenWhenWrittenInAnyWay) {
  GateReads kept;
  kept.PutRow(7, Item("ev_7", true));
  kept.PutRow(8, Item("ev_8", false));
  ASSERT_NE(kept.FindRow(7), nullptr);
  EXPECT_EQ(kept.FindRow(7)->version.entry_version_id, "ev_7");
  EXPECT_FALSE(kept.FindRow(8)->active);
  EXPECT_EQ(kept.FindRow(9), nullptr);
  kept.Removed({}, 7);  // removed (a retired row has no tokens: nothing is listed, yet it goes)
  kept.Added({}, 8);    // inserted again, retired or not
  EXPECT_EQ(kept.FindRow(7), nullptr);
  EXPECT_EQ(kept.FindRow(8), nullptr);
  ManifestItem big = Item("ev_big", true);
  big.version.text.assign(16 * 1024, 'x');  // an entry at the default size limit
  const int64_t fit = static_cast<int64_t>(GateReads::kMaxRowBytes / big.version.text.size());
  for (int64_t row = 0; row <= fit; ++row) kept.PutRow(row, big);
  EXPECT_EQ(kept.FindRow(0), nullptr) << "forgotten all at once when full: bounded by bytes";
  EXPECT_NE(kept.FindRow(fit), nullptr);
  kept.PutRow(fit, Item("ev_again", true));  // put again: replaced, not counted twice
  EXPECT_EQ(kept.FindRow(fit)->version.entry_version_id, "ev_again");
}

class KeptGateReadsTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  std::string scope = f.NewScope("project:kept-terms");
  std::mt19937 rng{20261205};
  const std::vector<std::string> words = {"orders", "importer", "currency", "rejects",
                                          "rows",   "batch",    "nightly",  "ledger",
                                          "导入",   "失败",     "表",       "行号"};
  // Small, so lists fill, shift and are forgotten often; the gate (which reads kReconcilePerTerm
  // a term) is off unless a test turns it on, so that only these reads keep lists.
  int per_term = 3;
  void SetUp() override { PC_ASSERT_OK(f.memory->SetSettings(scope, {{"reconcile", "off"}})); }

  std::string Statement() {
    std::uniform_int_distribution<size_t> word(0, words.size() - 1), length(2, 6);
    std::string text;
    for (size_t i = 0, n = length(rng); i < n; ++i) text += words[word(rng)] + " ";
    return text + std::to_string(rng() % 1000);
  }
  std::string MemoryId() { return f.memory->GetScope(scope)->memory_artifact_id; }
  int64_t Head() { return f.memory->GetScope(scope)->memory_head_revision; }
  TextQuery Query() {
    TextQuery q;
    std::uniform_int_distribution<size_t> word(0, words.size() - 1), length(1, 4);
    for (size_t i = 0, n = length(rng); i < n; ++i) q.phrases.push_back(words[word(rng)]);
    return q;
  }
  static std::vector<std::string> Ids(const std::vector<ManifestItem>& items) {
    std::vector<std::string> out;
    for (const ManifestItem& i : items)
      out.push_back(i.version.entry_version_id + (i.active ? "" : " (retired)") + " " +
                    i.version.text);
    return out;
  }
  // The candidates as a write's transaction finds them (the kept reads on SQLite) and as a read
  // transaction does (the index; the kept reads on PostgreSQL): the same, in the same order. The
  // memory's 3 newest changes are candidates too (kept on PostgreSQL), whatever their terms.
  void ExpectSameCandidates(const TextQuery& q, const std::string& when) {
    constexpr int kRecent = 3;
    std::vector<ManifestItem> writing, reading;
    PC_ASSERT_OK(f.store->Write(RequestActor(), [&](WriteTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(writing,
                          txn.SharedTermCandidates(MemoryId(), q, per_term, 1000, kRecent));
      return Status::Ok();
    }));
    PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(reading,
                          txn.SharedTermCandidates(MemoryId(), q, per_term, 1000, kRecent));
      return Status::Ok();
    }));
    ASSERT_EQ(Ids(writing), Ids(reading)) << when;
  }
  // Remembers, revisions and retirements at random, the lookup compared after each.
  void RandomChanges(int steps) {
    std::vector<Citation> active;
    for (int step = 0; step < steps; ++step) {
      const int op = static_cast<int>(rng() % 10);
      if (op < 6 || active.empty()) {
        auto w = f.memory->Remember({scope, "fact", Statement(), "", "t"});
        PC_ASSERT_OK(w);
        if (w->changed) active.push_back(*w->citation);
      } else {
        const size_t pick = rng() % active.size();
        Citation c = active[pick];
        c.memory.revision = Head();
        if (op < 8) {
          auto w = f.memory->Revise({scope, c, Statement(), std::nullopt, "reworded", "t"});
          PC_ASSERT_OK(w);
          if (w->changed) active[pick] = *w->citation;
        } else {
          PC_ASSERT_OK(f.memory->Retire({scope, c, "gone", "t"}));
          active.erase(active.begin() + static_cast<std::ptrdiff_t>(pick));
        }
      }
      ExpectSameCandidates(Query(), "after step " + std::to_string(step));
      ExpectSameCandidates(Query(), "again after step " + std::to_string(step));
    }
  }
};

TEST_F(KeptGateReadsTest, AWritesLookupEqualsTheIndexAfterEveryChange) { RandomChanges(160); }

TEST_F(KeptGateReadsTest, AndWithTheGateOnReadingItsOwnCap) {
  PC_ASSERT_OK(f.memory->SetSettings(scope, {{"reconcile", "warn"}}));
  per_term = kReconcilePerTerm;
  RandomChanges(160);
}

// A store whose writes, having done all their work, look their memory's terms up once more
// (a write's lookup sees its own rows: the kept lists take them in) and then fail.
class FailingAfterALookUp final : public Store {
 public:
  FailingAfterALookUp(Store& inner, std::function<std::string()> memory, TextQuery q)
      : inner_(inner), memory_(std::move(memory)), q_(std::move(q)) {}
  Status Read(const std::function<Status(ReadTxn&)>& fn) override { return inner_.Read(fn); }
  Status Write(const Actor& actor, const std::function<Status(WriteTxn&)>& fn) override {
    return inner_.Write(actor, [&](WriteTxn& txn) -> Status {
      PC_RETURN_IF_ERROR(fn(txn));
      PC_ASSIGN_OR_RETURN(auto seen, txn.SharedTermCandidates(memory_(), q_, 3, 1000, 0));
      return Internal("failed after its rows were read back (" + std::to_string(seen.size()) + ")");
    });
  }
  std::string TokensStamp() override { return inner_.TokensStamp(); }

 private:
  Store& inner_;
  std::function<std::string()> memory_;
  TextQuery q_;
};

TEST_F(KeptGateReadsTest, ARolledBackWriteLeavesNothingKept) {
  for (int i = 0; i < 20; ++i)
    PC_ASSERT_OK(f.memory->Remember({scope, "fact", Statement(), "", "t"}));
  TextQuery all{words};
  all.phrases.push_back("zebra");  // in no entry: its list is kept empty, then takes the rows below
  ExpectSameCandidates(all, "before");
  FailingAfterALookUp failing(
      *f.store, [&] { return MemoryId(); }, all);
  MemoryService through(failing, ServiceLimits{});
  EXPECT_FALSE(
      through.Remember({scope, "fact", "zebra orders importer ledger 导入", "", "t"}).ok());
  ExpectSameCandidates(all, "after a rolled back write");
  // The next write may take the rolled back one's row ids: a list still holding them would name
  // this entry for "zebra".
  PC_ASSERT_OK(f.memory->Remember({scope, "fact", "orders importer ledger 导入 失败", "", "t"}));
  ExpectSameCandidates(all, "after a good one");
}

// In a group with others, a write that fails after its rows were written and read back: the
// group is rolled back and runs again with a savepoint a write, and the failing write's is rolled
// back to (ROLLBACK TO, which SQLite's rollback hook does not report). Its rows must not stay in
// the lists: the next write takes their row ids.
TEST_F(KeptGateReadsTest, AWriteUndoneAloneInItsGroupLeavesNothingKept) {
  for (int i = 0; i < 20; ++i)
    PC_ASSERT_OK(f.memory->Remember({scope, "fact", Statement(), "", "t"}));
  TextQuery all{words};
  all.phrases.push_back("zebra");
  ExpectSameCandidates(all, "before");
  FailingAfterALookUp failing(
      *f.store, [&] { return MemoryId(); }, all);
  MemoryService through(failing, ServiceLimits{});
  const std::vector<std::string> texts = {Statement(), Statement(), Statement()};
  testing::WriterHeld leader(*f.store, 300);  // the others queue up into one group
  std::vector<std::thread> writers;
  std::vector<Status> results(4, Status::Ok());
  for (int i = 0; i < 4; ++i)
    writers.emplace_back([&, i] {
      results[i] =
          i == 1 ? through.Remember({scope, "fact", "zebra orders 导入", "", "t"}).status()
                 : f.memory->Remember({scope, "fact", texts[i == 0 ? 0 : i - 1], "", "t"}).status();
    });
  for (auto& w : writers) w.join();
  leader.Join();
  EXPECT_TRUE(results[0].ok() && results[2].ok() && results[3].ok());
  EXPECT_FALSE(results[1].ok());
  if (f.sqlite()) {
    EXPECT_GE(f.sqlite()->group_stats().reruns, 1u) << "the failing write did not share a group";
  }
  ExpectSameCandidates(all, "after the group");
  PC_ASSERT_OK(f.memory->Remember({scope, "fact", "orders importer ledger 导入 失败", "", "t"}));
  ExpectSameCandidates(all, "after a good one");
}

// A term's first rows are its active ones, however many of its entries are retired: on
// PostgreSQL (newest first) the read goes past up to 64 retired documents and checks them once,
// and past more checks each posting; on SQLite (oldest first) FTS5 leaves them out.
TEST_F(KeptGateReadsTest, ATermsRowsAreItsActiveOnesPastAnyRetired) {
  std::vector<Citation> written;
  for (int i = 0; i < 80; ++i) {
    auto w =
        f.memory->Remember({scope, "fact", "zebra crossing number " + std::to_string(i), "", "t"});
    PC_ASSERT_OK(w);
    written.push_back(*w->citation);
  }
  auto retire = [&](size_t from, size_t to) {  // [from, to)
    for (size_t i = from; i < to; ++i) {
      Citation c = written[i];
      c.memory.revision = Head();
      PC_ASSERT_OK(f.memory->Retire({scope, c, "gone", "t"}));
    }
  };
  const TextQuery zebra{{"zebra"}};
  auto candidates = [&] {
    std::vector<ManifestItem> found;
    const Status read = f.store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(found, txn.SharedTermCandidates(MemoryId(), zebra, per_term, 1000, 0));
      return Status::Ok();
    });
    EXPECT_TRUE(read.ok()) << read.ToString();
    return found;
  };
  // The 5 oldest and the 5 newest retired (a few: read past), then 70 in all (many).
  retire(0, 5);
  retire(75, 80);
  for (int round = 0; round < 2; ++round) {
    const std::vector<ManifestItem> found = candidates();
    EXPECT_EQ(found.size(), static_cast<size_t>(per_term)) << "round " << round;
    for (const ManifestItem& m : found) EXPECT_TRUE(m.active) << m.version.text;
    ExpectSameCandidates(zebra, "round " + std::to_string(round));
    if (round == 0) {
      retire(5, 35);
      retire(45, 75);
    }
  }
}

// Another connection (another store on the same directory or database: another process, another
// server) commits: the writer's kept lists on SQLite are forgotten, not trusted; a PostgreSQL
// server's are brought forward by the other's revisions.
TEST_F(KeptGateReadsTest, AnotherConnectionsCommitIsSeen) {
  for (int i = 0; i < 20; ++i)
    PC_ASSERT_OK(f.memory->Remember({scope, "fact", Statement(), "", "t"}));
  TextQuery all{words};
  all.phrases.push_back("zebra");  // in no entry yet: its list is kept empty
  ExpectSameCandidates(all, "before");
  for (int round = 0; round < 3; ++round) {
    std::unique_ptr<Store> other;
    if (f.sqlite()) {
      sqlite::SqliteOptions options;
      options.data_dir = f.dir.path();
      auto opened = sqlite::SqliteStore::Open(options);
      PC_ASSERT_OK(opened);
      other = std::move(opened).value();
    } else {
      pg::PgOptions options;
      options.url = f.pg->url();
      auto opened = pg::PgStore::Open(options);
      PC_ASSERT_OK(opened);
      other = std::move(opened).value();
    }
    MemoryService beside(*other, ServiceLimits{});
    std::vector<Citation> written;
    for (int i = 0; i < 10; ++i) {
      auto w = beside.Remember({scope, "fact", "zebra " + Statement(), "", "t"});
      PC_ASSERT_OK(w);
      written.push_back(*w->citation);
    }
    Citation c = written[static_cast<size_t>(round)];
    c.memory.revision = Head();
    PC_ASSERT_OK(beside.Retire({scope, c, "gone", "t"}));
    // One of this server's own after them: on PostgreSQL its lists stand before the other's
    // revisions, so they cannot follow this one from what it wrote (GateLists::Note).
    PC_ASSERT_OK(f.memory->Remember({scope, "fact", "zebra " + Statement(), "", "t"}));
    ExpectSameCandidates(all, "after another connection's writes, round " + std::to_string(round));
  }
}

}  // namespace
}  // namespace pc
