// Search through the service against a real store: modes, capability errors, and the snapshot
// rule (invariant 10).
#include "service/search/search_service.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "bulk_fill.h"
#include "search/text_query.h"
#include "test_util.h"

namespace pc {
namespace {

using testing::Fixture;

class SearchServiceTest : public ::testing::Test {
 protected:
  Fixture f;
  SearchService search{*f.store};
  std::string scope = f.NewScope();

  Citation Remember(const std::string& text) {
    auto r = f.memory->Remember({scope, "fact", text, "", "test", {}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *r->citation;
  }
  // A search of this scope for `q`, for a test to add to.
  SearchRequest Request(const std::string& q, SearchMode mode = SearchMode::kFts) {
    SearchRequest req;
    req.scope_id = scope;
    req.query = q;
    req.mode = mode;
    return req;
  }
  Result<SearchResult> Search(const std::string& q, SearchMode mode = SearchMode::kFts) {
    return search.Search(Request(q, mode));
  }
};

TEST_F(SearchServiceTest, HitsCarryExactCitationsAtTheSearchedRevision) {
  Remember("Deploy the orders importer on Tuesdays.");
  Remember("订单导入器每晚两点运行。");
  auto r = Search("orders importer deploy");
  PC_ASSERT_OK(r);
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->memory.revision, 2);
  EXPECT_EQ(r->hits[0].matched_by, std::vector<std::string>{"fts"});
  EXPECT_GT(r->hits[0].score, 0);
  auto read = f.memory->Read(scope, Citation{r->memory, r->hits[0].item.version.entry_id,
                                             r->hits[0].item.version.entry_version_id});
  PC_ASSERT_OK(read);
  EXPECT_EQ(read->version.text, "Deploy the orders importer on Tuesdays.");
  auto zh = Search("每晚运行");
  PC_ASSERT_OK(zh);
  ASSERT_EQ(zh->hits.size(), 1u);
  EXPECT_EQ(zh->hits[0].item.version.text, "订单导入器每晚两点运行。");
}

// The neighbour must be about the pool's topic: it holds "food", a word of the best hit's.
TEST_F(SearchServiceTest, FeedbackLiftsTheMemoryWrittenRightAfterAStrongHit) {
  Remember("Which cuisine do you like best, what food?");
  Remember("Sichuan food, the spicier the better.");
  Remember("The weather was sunny in the park.");
  SearchRequest plain_req = Request("cuisine");
  plain_req.feedback = false;  // plain BM25
  auto plain = search.Search(plain_req);
  PC_ASSERT_OK(plain);
  ASSERT_EQ(plain->hits.size(), 1u);
  SearchRequest req = Request("cuisine");  // feedback is the default
  auto r = search.Search(req);
  PC_ASSERT_OK(r);
  ASSERT_EQ(r->hits.size(), 2u);  // the answer after the question, though it shares no word with it
  EXPECT_EQ(r->hits[0].item.version.text, "Which cuisine do you like best, what food?");
  EXPECT_EQ(r->hits[1].item.version.text, "Sichuan food, the spicier the better.");
  EXPECT_LT(r->hits[1].score, r->hits[0].score);
  EXPECT_EQ(r->memory.revision, 3);
  auto again = search.Search(req);  // deterministic on the snapshot
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->hits[1].item.version.entry_version_id, r->hits[1].item.version.entry_version_id);
}

// A project's facts are independent events: a memory remembered next to a strong hit but about
// something else (none of the query's words nor the expansion's) is not lifted.
TEST_F(SearchServiceTest, FeedbackDoesNotLiftAnUnrelatedNeighbour) {
  Remember("Ship releases on Wednesdays.");
  Remember("订单导入器每晚两点运行。");
  Remember("The billing team owns invoices.");
  auto r = Search("wednesdays");
  PC_ASSERT_OK(r);
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].item.version.text, "Ship releases on Wednesdays.");
}

// A query of more than max_query_phrases phrases (a whole dialogue) is plain BM25: its hits lend
// nothing to the memories written next to them.
TEST_F(SearchServiceTest, ALongQueryIsPlainBm25) {
  Remember("Which cuisine do you like best?");
  Remember("Sichuan food, the spicier the better.");
  std::string query = "cuisine";
  for (int i = 0; i < FeedbackOptions{}.max_query_phrases; ++i)
    query += " word" + std::to_string(i);
  auto r = Search(query);
  PC_ASSERT_OK(r);
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].item.version.text, "Which cuisine do you like best?");
}

// The neighbour lookup's read (text_channel.cc, SmallRevision): the entries a range of revisions
// changed, `limit` distinct ones at most, each once though it changed in several revisions; an
// import's revision is read only as far as the limit (PostgreSQL reads it a page at a time).
TEST_F(SearchServiceTest, ChangedEntriesCountsEachEntryOnceUpToTheLimit) {
  Citation c = Remember("The cache lives in Redis.");
  for (const char* text : {"The cache lives in Memcached.", "The cache lives in Valkey."}) {
    auto revised = f.memory->Revise({scope, c, text, std::nullopt, "", ""});
    PC_ASSERT_OK(revised);
    c = *revised->citation;
  }
  std::vector<RememberRequest> batch;
  for (int i = 0; i < 8; ++i)
    batch.push_back({scope,
                     "fact",
                     "Imported fact number " + std::to_string(i) + " of eight.",
                     "",
                     "test",
                     {}});
  auto imported =
      f.memory->RememberBatch({scope, std::move(batch), "import", "test", std::nullopt});
  PC_ASSERT_OK(imported);
  ASSERT_EQ(imported->memory.revision, 4);
  std::set<std::string> batch_ids;
  for (const WriteOutcome& e : imported->entries) batch_ids.insert(e.citation->entry_id);
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    const std::string& artifact = c.memory.artifact_id;
    auto distinct = [](const std::vector<std::string>& ids) {
      return std::set<std::string>(ids.begin(), ids.end()).size() == ids.size();
    };
    PC_ASSIGN_OR_RETURN(auto first_three, txn.ChangedEntries(artifact, 0, 3, 5));
    EXPECT_EQ(first_three, std::vector<std::string>{c.entry_id}) << "three changes, one entry";
    PC_ASSIGN_OR_RETURN(auto across, txn.ChangedEntries(artifact, 0, 4, 3));
    EXPECT_EQ(across.size(), 3u);
    EXPECT_TRUE(distinct(across));
    EXPECT_EQ(std::count(across.begin(), across.end(), c.entry_id), 1);
    PC_ASSIGN_OR_RETURN(auto some, txn.ChangedEntries(artifact, 3, 4, 5));
    EXPECT_EQ(some.size(), 5u);
    EXPECT_TRUE(distinct(some));
    for (const std::string& id : some) EXPECT_TRUE(batch_ids.count(id)) << id;
    PC_ASSIGN_OR_RETURN(auto all, txn.ChangedEntries(artifact, 0, 4, 100));
    EXPECT_EQ(all.size(), 9u);
    EXPECT_TRUE(distinct(all));
    PC_ASSIGN_OR_RETURN(auto unlimited, txn.ChangedEntries(artifact, 0, 4));
    EXPECT_EQ(std::set<std::string>(unlimited.begin(), unlimited.end()),
              std::set<std::string>(all.begin(), all.end()));
    PC_ASSIGN_OR_RETURN(auto none, txn.ChangedEntries(artifact, 0, 4, 0));
    EXPECT_TRUE(none.empty());
    PC_ASSIGN_OR_RETURN(auto beyond, txn.ChangedEntries(artifact, 4, 9, 5));
    EXPECT_TRUE(beyond.empty());
    return Status::Ok();
  }));
}

TEST_F(SearchServiceTest, RevisedTextIsFoundAndOldTextIsNot) {
  Citation c = Remember("The cache lives in Redis.");
  auto rev = f.memory->Revise({scope, c, "The cache lives in Memcached.", std::nullopt, "", ""});
  PC_ASSERT_OK(rev);
  EXPECT_TRUE(Search("redis")->hits.empty());
  ASSERT_EQ(Search("memcached")->hits.size(), 1u);
  EXPECT_EQ(Search("memcached")->hits[0].item.version.version, 2);
}

TEST_F(SearchServiceTest, ModesAndCapabilities) {
  Remember("anything");
  EXPECT_EQ(Search("anything", SearchMode::kVector).status().code(), Code::kCapabilityUnavailable);
  EXPECT_EQ(Search("anything", SearchMode::kHybrid).status().code(), Code::kCapabilityUnavailable);
  auto aut = Search("anything", SearchMode::kAuto);
  PC_ASSERT_OK(aut);
  EXPECT_EQ(aut->mode_used, SearchMode::kFts);
  EXPECT_EQ(Search("", SearchMode::kFts).status().code(), Code::kInvalidArgument);
  for (const char* nothing : {" ", "\u3000\t", "\u200b"}) {  // valid, says nothing: no hits
    auto none = Search(nothing, SearchMode::kAuto);
    PC_ASSERT_OK(none);
    EXPECT_TRUE(none->hits.empty());
    EXPECT_EQ(none->mode_used, SearchMode::kFts);
  }
  EXPECT_EQ(Search(std::string(kMaxQueryBytes + 1, 'q')).status().code(), Code::kTooLarge);
  SearchRequest req{scope, "x", SearchMode::kFts, 0, false, std::nullopt};
  EXPECT_EQ(search.Search(req).status().code(), Code::kInvalidArgument);
  req.limit = 101;
  EXPECT_EQ(search.Search(req).status().code(), Code::kInvalidArgument);
  // A rerank without a reranker is refused before anything is read, whatever the scope (found by
  // the routes fuzzer: a rerank of an unknown scope reached a null reranker and crashed).
  for (const char* any : {"scp_01M8NBY5Z4E603HKW9W05XEGN8", "project:never-written"}) {
    SearchRequest rr{any, "contract tests", SearchMode::kFts, 10, false, std::nullopt};
    rr.rerank = true;
    EXPECT_EQ(search.Search(rr).status().code(), Code::kCapabilityUnavailable) << any;
  }
  // A scope nobody wrote to (never issued, or never named): nothing to find, no memory.
  for (const char* unknown : {"scp_01M8NBY5Z4E603HKW9W05XEGN8", "project:never-written"}) {
    req = {unknown, "x", SearchMode::kFts, 10, false, std::nullopt};
    auto none = search.Search(req);
    PC_ASSERT_OK(none);
    EXPECT_TRUE(none->hits.empty());
    EXPECT_TRUE(none->memory.artifact_id.empty());
  }
}

TEST_F(SearchServiceTest, HostileQueriesAreJustSearches) {
  Remember("a (parenthesised) \"quoted\" note: with * and ^ NEAR AND OR NOT");
  for (const char* q :
       {"\"", "\"\"\"", "(", ")", "*", "^", ":", "NEAR(a b)", "a AND", "OR OR", "NOT", "col:value",
        "{a b}", "+-", "🚀", "'; DROP TABLE entries; --", "\xe2\x80\x8b", "a\"b", "x*"}) {
    auto r = Search(q);
    EXPECT_TRUE(r.ok() || r.status().code() == Code::kInvalidArgument)
        << q << ": " << r.status().ToString();
    if (!r.ok()) {
      EXPECT_NE(r.status().code(), Code::kInternal) << q;
    }
  }
  EXPECT_EQ(Search("quoted parenthesised")->hits.size(), 1u);
}

// Nothing crosses scopes, ranking included: another scope full of a word changes neither which
// entries of this scope match nor their order.
TEST_F(SearchServiceTest, OtherScopesDoNotChangeResults) {
  Remember("The widget ships on Monday.");
  Remember("Gears are ordered from Acme.");
  auto before = Search("widget gears");
  PC_ASSERT_OK(before);
  ASSERT_EQ(before->hits.size(), 2u);
  std::string other = f.NewScope("project:other");
  PC_ASSERT_OK(FillMemory(
      *f.store, *f.memory->GetScope(other), 2500,
      [](int64_t i) { return "widget " + std::to_string(i); }, nullptr));
  auto after = Search("widget gears");
  PC_ASSERT_OK(after);
  ASSERT_EQ(after->hits.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(after->hits[i].item.version.entry_id, before->hits[i].item.version.entry_id);
    EXPECT_DOUBLE_EQ(after->hits[i].score, before->hits[i].score);
  }
}

// Queries made only of very common words (past the store's planning threshold) still find the
// entries with all of them first, however old (while that is affordable: AllPhrasesAffordable),
// and fill the page with entries that have any.
TEST_F(SearchServiceTest, QueriesOfOnlyCommonWords) {
  PC_ASSERT_OK(FillMemory(
      *f.store, *f.memory->GetScope(scope), 4400,
      [](int64_t i) {
        return i == 0 ? std::string("alpha and beta together")
                      : (i % 2 ? "alpha " : "beta ") + std::to_string(i);
      },
      nullptr));
  auto r = Search("alpha beta");
  PC_ASSERT_OK(r);
  ASSERT_EQ(r->hits.size(), 10u);
  EXPECT_EQ(r->hits[0].item.version.text, "alpha and beta together");
  std::set<std::string> ids;
  for (const SearchHit& h : r->hits) EXPECT_TRUE(ids.insert(h.item.version.entry_id).second);
  // One common word: a full page of entries that have it, scored above zero.
  auto one = Search("alpha");
  PC_ASSERT_OK(one);
  ASSERT_EQ(one->hits.size(), 10u);
  for (const SearchHit& h : one->hits) {
    EXPECT_NE(h.item.version.text.find("alpha"), std::string::npos);
    EXPECT_GT(h.score, 0);
  }
}

// Past AllPhrasesAffordable the cost stays bounded: the newest entries with any of the words are
// ranked, those with all of them first; an old entry with all of them is no longer sought.
TEST_F(SearchServiceTest, QueriesOfOnlyCommonWordsInALargeMemoryRankTheNewest) {
  const int64_t n = kAllPhrasesPostings / 2 + 100;
  ASSERT_FALSE(AllPhrasesAffordable(n, 2));
  PC_ASSERT_OK(FillMemory(
      *f.store, *f.memory->GetScope(scope), n,
      [n](int64_t i) {
        return i == n - 50 ? std::string("alpha and beta together")
                           : (i % 2 ? "alpha " : "beta ") + std::to_string(i);
      },
      nullptr));
  auto r = Search("alpha beta");
  PC_ASSERT_OK(r);
  ASSERT_EQ(r->hits.size(), 10u);
  EXPECT_EQ(r->hits[0].item.version.text, "alpha and beta together");
  for (const SearchHit& h : r->hits) EXPECT_GT(h.score, 0);
}

// Invariant 10: while writers revise entries, every hit of a search must be the version that was
// in the manifest at the revision the search reports.
TEST_F(SearchServiceTest, SearchReadsOneSnapshot) {
  std::vector<Citation> cites;
  for (int i = 0; i < 20; ++i) cites.push_back(Remember("shared topic item " + std::to_string(i)));
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int round = 0; !stop && round < 200; ++round) {
      auto page = f.memory->ListEntries({scope, std::nullopt, false, {1000, ""}});
      if (!page.ok()) continue;
      const ManifestItem& m = page->items[static_cast<size_t>(round) % page->items.size()];
      (void)f.memory->Revise({scope,
                              {page->memory, m.version.entry_id, m.version.entry_version_id},
                              "shared topic item revised " + std::to_string(round),
                              std::nullopt,
                              "",
                              ""});
    }
  });
  int checked = 0;
  for (int i = 0; i < 100; ++i) {
    auto r = Search("shared topic item");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const SearchHit& h : r->hits) {
      auto read = f.memory->Read(
          scope, Citation{r->memory, h.item.version.entry_id, h.item.version.entry_version_id});
      ASSERT_TRUE(read.ok()) << "hit not in the manifest of r" << r->memory.revision;
      ++checked;
    }
  }
  stop = true;
  writer.join();
  EXPECT_GT(checked, 0);
}

// Read-your-writes (issue 15): a read naming the revision a write answered is answered from that
// revision or later; a revision the store has not committed is a clear 409, and nothing else.
TEST_F(SearchServiceTest, MinRevisionAnswersFromThatRevisionOrSaysWhyNot) {
  Citation c = Remember("The invoice exporter writes CSV files.");
  const int64_t written = c.memory.revision;
  SearchRequest req = Request("invoice exporter");
  req.min_revision = written;
  auto at = search.Search(req);
  PC_ASSERT_OK(at);
  EXPECT_EQ(at->memory.revision, written);
  ASSERT_EQ(at->hits.size(), 1u);

  req.min_revision = written + 1;
  auto ahead = search.Search(req);
  ASSERT_FALSE(ahead.ok());
  EXPECT_EQ(ahead.status().code(), Code::kRevisionNotVisible);
  EXPECT_NE(ahead.status().message().find("min_revision " + std::to_string(written + 1)),
            std::string::npos)
      << ahead.status().message();

  req.min_revision = 0;
  auto zero = search.Search(req);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), Code::kInvalidArgument);

  // A scope nobody wrote to is at revision 0: any min_revision is ahead of it.
  req.scope_id = "never-written";
  req.min_revision = 1;
  auto unknown = search.Search(req);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Code::kRevisionNotVisible);
  // A query that says nothing is checked the same way.
  req.scope_id = scope;
  req.query = " ";
  req.min_revision = written + 1;
  auto blank = search.Search(req);
  ASSERT_FALSE(blank.ok());
  EXPECT_EQ(blank.status().code(), Code::kRevisionNotVisible);

  // Listings: the head at or after the revision; a historical revision before it is a
  // contradiction.
  ListEntriesRequest list;
  list.scope_id = scope;
  list.page.limit = 10;
  list.min_revision = written;
  auto listed = f.memory->ListEntries(list);
  PC_ASSERT_OK(listed);
  EXPECT_EQ(listed->items.size(), 1u);
  list.min_revision = written + 1;
  auto list_ahead = f.memory->ListEntries(list);
  ASSERT_FALSE(list_ahead.ok());
  EXPECT_EQ(list_ahead.status().code(), Code::kRevisionNotVisible);
  Remember("The invoice exporter also writes JSON.");
  list.revision = written;
  auto contradiction = f.memory->ListEntries(list);
  ASSERT_FALSE(contradiction.ok());
  EXPECT_EQ(contradiction.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace pc
