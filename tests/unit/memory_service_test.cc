// The explicit write path and the reads, against a real SQLite store (invariants 2–6).
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "model/citation.h"
#include "test_util.h"

namespace pc {
namespace {

using testing::Fixture;

class MemoryServiceTest : public ::testing::Test {
 protected:
  Fixture f;
  std::string scope = f.NewScope();

  WriteOutcome Remember(const std::string& text, const std::string& kind = "fact",
                        std::optional<int64_t> expected = std::nullopt) {
    auto r = f.memory->Remember({scope, kind, text, "", "test", expected});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : WriteOutcome{};
  }
  int64_t Head() { return f.memory->GetScope(scope)->memory_head_revision; }
  std::vector<ManifestItem> Entries(std::optional<int64_t> revision = std::nullopt,
                                    bool inactive = false) {
    auto r = f.memory->ListEntries({scope, revision, inactive, {}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->items : std::vector<ManifestItem>{};
  }
};

TEST_F(MemoryServiceTest, ScopesAreIdempotentByKey) {
  auto again = f.memory->CreateScope("project:test");
  PC_ASSERT_OK(again);
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->scope.scope_id, scope);
  auto other = f.memory->CreateScope("project:other");
  PC_ASSERT_OK(other);
  EXPECT_TRUE(other->created);
  EXPECT_NE(other->scope.memory_artifact_id, again->scope.memory_artifact_id);
  EXPECT_EQ(f.memory->GetScope("scp_nope").status().code(), Code::kNotFound);
  // The spec's scope_id: 1–256 characters, not blank; server ids (scp_…) cannot be chosen.
  EXPECT_EQ(f.memory->CreateScope("  ").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(f.memory->CreateScope("\u3000\t").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(f.memory->CreateScope("").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(f.memory->CreateScope(std::string(257, 'k')).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(f.memory->CreateScope(std::string(256, 'k')).ok());
  EXPECT_TRUE(f.memory->CreateScope(std::string(256 / 3, 'k') + std::string("订"))
                  .ok());  // characters, not bytes
  EXPECT_EQ(f.memory->CreateScope("scp_mine").status().code(), Code::kInvalidArgument);
  // Compared byte for byte: what folds together elsewhere names other scopes here.
  for (const char* key : {"Project:test", "project:test\u3000", "ｐroject:test", "project:  test",
                          "project:\u200btest", "project:TEST"}) {
    auto made = f.memory->CreateScope(key);
    PC_ASSERT_OK(made);
    EXPECT_TRUE(made->created) << key;
  }
  EXPECT_TRUE(f.memory->CreateScope("项目:订单导入").ok());
  EXPECT_EQ(f.memory->GetScope("\xff").status().code(), Code::kInvalidArgument);
}

TEST_F(MemoryServiceTest, RememberMakesRevisionsOneByOne) {
  WriteOutcome a = Remember("Use PostgreSQL 15 for the orders importer.");
  ASSERT_TRUE(a.changed);
  EXPECT_EQ(a.memory.revision, 1);
  EXPECT_EQ(a.entry->version, 1);
  EXPECT_FALSE(a.entry->previous_version_id.has_value());
  EXPECT_EQ(a.citation->memory, a.memory);
  WriteOutcome b = Remember("订单导入器每晚两点运行。");
  EXPECT_EQ(b.memory.revision, 2);
  EXPECT_EQ(Head(), 2);
  EXPECT_EQ(Entries().size(), 2u);
}

TEST_F(MemoryServiceTest, CanonicalDuplicateIsNoChange) {
  WriteOutcome a = Remember("Run contract tests after the schema migration.", "decision");
  WriteOutcome dup = Remember("  Run contract  tests after the schema migration.\n", "decision");
  EXPECT_FALSE(dup.changed);
  EXPECT_FALSE(dup.entry.has_value());
  EXPECT_EQ(dup.memory.revision, 1);
  ASSERT_TRUE(dup.duplicate_of.has_value());
  EXPECT_EQ(dup.duplicate_of->entry_version_id, a.entry->entry_version_id);
  EXPECT_EQ(Head(), 1);
  // Same text, other kind: a different statement.
  EXPECT_TRUE(Remember("Run contract tests after the schema migration.", "constraint").changed);
}

TEST_F(MemoryServiceTest, DuplicateOfRetiredEntryIsNew) {
  WriteOutcome a = Remember("temporary note");
  PC_ASSERT_OK(f.memory->Retire({scope, *a.citation, "done", "test"}));
  WriteOutcome again = Remember("temporary note");
  EXPECT_TRUE(again.changed);
  EXPECT_NE(again.entry->entry_id, a.entry->entry_id);
}

TEST_F(MemoryServiceTest, ExpectedRevisionConflicts) {
  Remember("one");
  EXPECT_EQ(f.memory->Remember({scope, "fact", "two", "", "test", 0}).status().code(),
            Code::kInvalidArgument);
  Remember("two", "fact", 1);
  auto stale = f.memory->Remember({scope, "fact", "three", "", "test", 1});
  ASSERT_EQ(stale.status().code(), Code::kConflict);
  ASSERT_EQ(stale.status().details().size(), 1u);
  EXPECT_EQ(stale.status().details()[0].key, "current_revision");
  EXPECT_EQ(std::get<int64_t>(stale.status().details()[0].value), 2);
  EXPECT_EQ(Head(), 2);
  EXPECT_TRUE(Remember("three", "fact", 2).changed);
}

TEST_F(MemoryServiceTest, ReviseMakesNextVersionAndKeepsOthers) {
  WriteOutcome a = Remember("Deploys happen on Tuesdays.");
  WriteOutcome b = Remember("The API is versioned under /v1.");
  Citation a_at_head{b.memory, a.entry->entry_id, a.entry->entry_version_id};
  auto revised = f.memory->Revise(
      {scope, a_at_head, "Deploys happen on Wednesdays.", std::nullopt, "moved", "test"});
  PC_ASSERT_OK(revised);
  EXPECT_TRUE(revised->changed);
  EXPECT_EQ(revised->memory.revision, 3);
  EXPECT_EQ(revised->entry->entry_id, a.entry->entry_id);
  EXPECT_EQ(revised->entry->version, 2);
  EXPECT_EQ(revised->entry->previous_version_id, a.entry->entry_version_id);
  EXPECT_EQ(revised->entry->kind, "fact");  // kind kept when not given
  auto now = Entries();
  ASSERT_EQ(now.size(), 2u);
  for (const ManifestItem& m : now) {
    if (m.version.entry_id == b.entry->entry_id)
      EXPECT_EQ(m.version.entry_version_id, b.entry->entry_version_id);  // untouched
    else
      EXPECT_EQ(m.version.entry_version_id, revised->entry->entry_version_id);
  }
  // Revision 2 still reads exactly as it was.
  auto at2 = Entries(2);
  ASSERT_EQ(at2.size(), 2u);
  EXPECT_EQ(at2[0].version.text, "Deploys happen on Tuesdays.");
}

TEST_F(MemoryServiceTest, StaleCitationIsConflictEvenIfEntryUnchanged) {
  WriteOutcome a = Remember("alpha");
  Remember("beta");  // moves the head; alpha itself is untouched
  auto r = f.memory->Revise({scope, *a.citation, "alpha 2", std::nullopt, "", "test"});
  ASSERT_EQ(r.status().code(), Code::kConflict);
  EXPECT_EQ(std::get<int64_t>(r.status().details()[0].value), 2);
  auto t = f.memory->Retire({scope, *a.citation, "", "test"});
  EXPECT_EQ(t.status().code(), Code::kConflict);
  EXPECT_EQ(Head(), 2);
}

TEST_F(MemoryServiceTest, CitationsThatNeverExistedAre404) {
  WriteOutcome a = Remember("alpha");
  Citation wrong_version = *a.citation;
  wrong_version.entry_version_id = "env_01M8NBY5ZJBG2TCBZ43Q7CHJSR";
  EXPECT_EQ(f.memory->Revise({scope, wrong_version, "x", std::nullopt, "", ""}).status().code(),
            Code::kNotFound);
  Citation future = *a.citation;
  future.memory.revision = 9;
  EXPECT_EQ(f.memory->Retire({scope, future, "", ""}).status().code(), Code::kNotFound);
  Citation other_memory = *a.citation;
  other_memory.memory.artifact_id = "mem_01M8NBY5Z4SVYWMZSJZTE254JF";
  EXPECT_EQ(f.memory->Read(scope, other_memory).status().code(), Code::kNotFound);
  std::string other_scope = f.NewScope("project:other");
  EXPECT_EQ(f.memory->Read(other_scope, *a.citation).status().code(), Code::kNotFound);
}

TEST_F(MemoryServiceTest, ReviseToSameCanonicalTextIsNoChange) {
  WriteOutcome a = Remember("same text");
  auto r = f.memory->Revise({scope, *a.citation, "  same   text ", std::nullopt, "", ""});
  PC_ASSERT_OK(r);
  EXPECT_FALSE(r->changed);
  EXPECT_EQ(Head(), 1);
}

TEST_F(MemoryServiceTest, ReviseIntoAnotherActiveEntryIsConflict) {
  Remember("one");
  WriteOutcome b = Remember("two");
  auto r = f.memory->Revise({scope, *b.citation, "one", std::nullopt, "", ""});
  ASSERT_EQ(r.status().code(), Code::kConflict);
  EXPECT_EQ(r.status().details()[0].key, "duplicate_of");
  EXPECT_EQ(Head(), 2);
}

TEST_F(MemoryServiceTest, RetireHidesButHistoryStays) {
  WriteOutcome a = Remember("Old constraint: no Friday deploys.", "constraint");
  auto retired = f.memory->Retire({scope, *a.citation, "policy changed", "test"});
  PC_ASSERT_OK(retired);
  EXPECT_EQ(retired->memory.revision, 2);
  EXPECT_FALSE(retired->active);
  EXPECT_EQ(retired->entry->entry_version_id, a.entry->entry_version_id);  // no new version
  EXPECT_TRUE(Entries().empty());
  auto all = Entries(std::nullopt, true);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_FALSE(all[0].active);
  // Retiring again is a conflict that says why.
  auto again = f.memory->Retire({scope, *retired->citation, "", ""});
  ASSERT_EQ(again.status().code(), Code::kConflict);
  EXPECT_NE(again.status().message().find("already retired"), std::string::npos);
  // Revising a retired entry is a conflict too.
  EXPECT_EQ(
      f.memory->Revise({scope, *retired->citation, "x", std::nullopt, "", ""}).status().code(),
      Code::kConflict);
  // The old citation still reads the exact text.
  auto read = f.memory->Read(scope, *a.citation);
  PC_ASSERT_OK(read);
  EXPECT_EQ(read->version.text, "Old constraint: no Friday deploys.");
  EXPECT_TRUE(read->active_at_revision);
  EXPECT_FALSE(read->current);
  auto versions = f.memory->ListVersions(scope, a.entry->entry_id, {});
  PC_ASSERT_OK(versions);
  EXPECT_EQ(versions->items.size(), 1u);
}

TEST_F(MemoryServiceTest, HistoryRecordsChanges) {
  WriteOutcome a = Remember("a");
  auto rev = f.memory->Revise({scope, *a.citation, "a2", "decision", "why", "alice"});
  PC_ASSERT_OK(rev);
  PC_ASSERT_OK(f.memory->Retire({scope, *rev->citation, "gone", "bob"}));
  auto history = f.memory->ListRevisions(scope, {});
  PC_ASSERT_OK(history);
  ASSERT_EQ(history->items.size(), 3u);
  EXPECT_EQ(history->head.revision, 3);
  EXPECT_EQ(history->items[0].memory.revision, 3);  // newest first
  EXPECT_EQ(history->items[0].actor, "bob");
  EXPECT_EQ(history->items[0].changes[0].op, ChangeOp::kRetire);
  EXPECT_EQ(history->items[1].changes[0].op, ChangeOp::kRevise);
  EXPECT_EQ(history->items[1].changes[0].from_version_id, a.entry->entry_version_id);
  EXPECT_EQ(history->items[1].reason, "why");
  EXPECT_EQ(history->items[2].changes[0].op, ChangeOp::kAdd);
  auto detail = f.memory->GetRevision(scope, 2, {});
  PC_ASSERT_OK(detail);
  ASSERT_EQ(detail->manifest.size(), 1u);
  EXPECT_EQ(detail->manifest[0].version.text, "a2");
  EXPECT_EQ(detail->manifest[0].version.kind, "decision");
  EXPECT_EQ(f.memory->GetRevision(scope, 4, {}).status().code(), Code::kNotFound);
}

TEST_F(MemoryServiceTest, PaginationCoversEverythingOnce) {
  for (int i = 0; i < 25; ++i) Remember("entry " + std::to_string(i));
  std::set<std::string> seen;
  PageRequest page{7, ""};
  int pages = 0;
  while (true) {
    auto r = f.memory->ListEntries({scope, std::nullopt, false, page});
    PC_ASSERT_OK(r);
    for (const auto& m : r->items) EXPECT_TRUE(seen.insert(m.version.entry_id).second);
    ++pages;
    if (!r->next_cursor) break;
    page.cursor = *r->next_cursor;
  }
  EXPECT_EQ(seen.size(), 25u);
  EXPECT_EQ(pages, 4);
  auto revs = f.memory->ListRevisions(scope, {10, ""});
  PC_ASSERT_OK(revs);
  ASSERT_TRUE(revs->next_cursor.has_value());
  auto more = f.memory->ListRevisions(scope, {10, *revs->next_cursor});
  PC_ASSERT_OK(more);
  EXPECT_EQ(more->items.front().memory.revision, 15);
  EXPECT_EQ(f.memory->ListEntries({scope, std::nullopt, false, {0, ""}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(f.memory->ListEntries({scope, std::nullopt, false, {1001, ""}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(f.memory->ListRevisions(scope, {10, "abc"}).status().code(), Code::kInvalidArgument);
  // A cursor from another scope's listing is refused, not used to page this one from its place.
  std::string other = f.NewScope("project:other");
  for (int i = 0; i < 3; ++i)
    PC_ASSERT_OK(f.memory->Remember({other, "fact", "other " + std::to_string(i), "", "t", {}}));
  auto theirs = f.memory->ListEntries({other, std::nullopt, false, {1, ""}});
  PC_ASSERT_OK(theirs);
  ASSERT_TRUE(theirs->next_cursor.has_value());
  auto crossed = f.memory->ListEntries({scope, std::nullopt, false, {7, *theirs->next_cursor}});
  EXPECT_EQ(crossed.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(f.memory->GetRevision(scope, 1, {7, *theirs->next_cursor}).status().code(),
            Code::kInvalidArgument);
}

TEST_F(MemoryServiceTest, BadInputChangesNothing) {
  Remember("keep me");
  ServiceLimits limits;
  struct Case {
    RememberRequest req;
    Code code;
  };
  std::vector<Case> cases = {
      {{scope, "fact", "", "", "", {}}, Code::kInvalidArgument},
      {{scope, "fact", " \t\n", "", "", {}}, Code::kInvalidArgument},
      {{scope, "fact", "\u3000", "", "", {}}, Code::kInvalidArgument},
      {{scope, "fact", "\u200b\u200b\ufeff", "", "", {}},
       Code::kInvalidArgument},  // invisible only
      {{scope, "fact", "\u034f\u115f\u3164", "", "", {}}, Code::kInvalidArgument},  // ignorables
      {{scope, "fact", "\xff\xfe", "", "", {}}, Code::kInvalidArgument},
      {{scope, "a\nkind", "x", "", "", {}}, Code::kInvalidArgument},
      {{scope, std::string(129, 'k'), "x", "", "", {}}, Code::kInvalidArgument},
      {{scope, "fact", std::string(limits.max_entry_bytes + 1, 'x'), "", "", {}}, Code::kTooLarge},
      {{scope, "fact", "x", std::string(limits.max_reason_bytes + 1, 'r'), "", {}},
       Code::kTooLarge},
      {{"scp_01M8NBY5Z4E603HKW9W05XEGN8", "fact", "x", "", "", {}},
       Code::kInvalidArgument},  // not ours to create
      {{" ", "fact", "x", "", "", {}}, Code::kInvalidArgument},
      {{scope, "fact", "x", "", "", 0}, Code::kInvalidArgument},
      {{"", "fact", "x", "", "", {}}, Code::kInvalidArgument},
      {{scope, "fact", "x", "", "", -1}, Code::kInvalidArgument},
  };
  for (const Case& c : cases) {
    auto r = f.memory->Remember(c.req);
    EXPECT_EQ(r.status().code(), c.code) << r.status().ToString();
    if (c.code != Code::kNotFound) {  // every input error names its field for the caller
      bool has_field = false;
      for (const Detail& d : r.status().details()) has_field = has_field || d.key == "field";
      EXPECT_TRUE(has_field) << r.status().ToString();
    }
  }
  EXPECT_EQ(Head(), 1);
  EXPECT_EQ(Entries().size(), 1u);
  // Exactly at the limit is fine.
  EXPECT_TRUE(Remember(std::string(limits.max_entry_bytes, 'y')).changed);
}

TEST_F(MemoryServiceTest, ConcurrentWritersLoseNothing) {
  constexpr int kThreads = 8;
  constexpr int kEach = 40;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = f.memory->Remember({scope,
                                     "fact",
                                     "thread " + std::to_string(t) + " item " + std::to_string(i),
                                     "",
                                     "",
                                     {}});
        if (!r.ok() || !r->changed) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Head(), kThreads * kEach);
  auto r = f.memory->ListEntries({scope, std::nullopt, false, {1000, ""}});
  PC_ASSERT_OK(r);
  EXPECT_EQ(r->items.size(), static_cast<size_t>(kThreads * kEach));
}

TEST_F(MemoryServiceTest, RacingExpectedRevisionHasOneWinner) {
  Remember("base");
  constexpr int kThreads = 6;
  std::atomic<int> wins{0}, conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      auto r = f.memory->Remember({scope, "fact", "racer " + std::to_string(t), "", "", 1});
      if (r.ok())
        ++wins;
      else if (r.status().code() == Code::kConflict)
        ++conflicts;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(conflicts.load(), kThreads - 1);
  EXPECT_EQ(Head(), 2);
}

TEST_F(MemoryServiceTest, EverythingSurvivesReopen) {
  WriteOutcome a = Remember("persisted 持久");
  auto rev = f.memory->Revise({scope, *a.citation, "persisted v2", std::nullopt, "", ""});
  PC_ASSERT_OK(rev);
  f.Reopen();
  auto read1 = f.memory->Read(scope, *a.citation);
  PC_ASSERT_OK(read1);
  EXPECT_EQ(read1->version.text, "persisted 持久");
  auto read2 = f.memory->Read(scope, *rev->citation);
  PC_ASSERT_OK(read2);
  EXPECT_TRUE(read2->current);
  EXPECT_EQ(Head(), 2);
}

// A revision's change that the store cannot name is corruption: reading it is an internal error,
// never an "add" (both stores once read any unknown text as one).
TEST(MemoryServiceCorruption, AChangeWithAnUnknownNameIsAnErrorNotAnAdd) {
  Fixture f;
  std::string scope = f.NewScope();
  PC_ASSERT_OK(f.memory->Remember({scope, "fact", "the importer runs nightly", "", "", {}}));
  PC_ASSERT_OK(f.memory->ListRevisions(scope, {}));
  PC_ASSERT_OK(f.ExecBehindTheStore("UPDATE revision_changes SET op = 'merge'",
                                    "UPDATE revision_changes SET op = 'merge'"));
  auto revisions = f.memory->ListRevisions(scope, {});
  ASSERT_FALSE(revisions.ok());
  EXPECT_EQ(revisions.status().code(), Code::kInternal);
  EXPECT_NE(revisions.status().message().find("unknown change: merge"), std::string::npos)
      << revisions.status().message();
}

}  // namespace
}  // namespace pc
