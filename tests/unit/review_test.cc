// Review (RFC 0050, docs/review.md) through the service against the real store (SQLite, and
// PostgreSQL under the pg: prefix): proposals are pending candidates that never reach search or
// prepared context; revise makes an immutable next version; approve commits exactly the current
// version as an Experience revision in the same transaction as the approved status, with the
// candidate's and the target's compare-and-set; reject is terminal; bad input changes nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/clock.h"
#include "service/admin/stats_service.h"
#include "service/context/context_service.h"
#include "service/flush/source_service.h"
#include "service/review/review_service.h"
#include "service/search/search_service.h"
#include "test_util.h"

namespace pc {
namespace {

ExperienceContent Lesson(const std::string& lesson) {
  return ExperienceContent{"The OpenAPI document of the orders service changed.",
                           "Regenerated the client and ran the contract tests.",
                           "The contract tests caught a renamed field before release.", lesson};
}

class ReviewTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  std::string scope = f.NewScope("project:review");
  ReviewService review{*f.store};
  SourceService sources{*f.store};
  SearchService search{*f.store};
  ContextService context{*f.store, search};

  void SetUp() override {
    ASSERT_TRUE(sources
                    .Add(scope, {{"task-outcome", "", "Run 42: contract tests caught the rename.",
                                  "{}", "run-42"}})
                    .ok());
  }

  Evidence RunEvidence() { return Evidence{{{kContentSourceName, "run-42"}}, {}}; }

  ArtifactCandidate Propose(const std::string& lesson,
                            std::optional<MemoryRef> target = std::nullopt) {
    ProposeExperienceRequest r{scope, Lesson(lesson), RunEvidence(), target, "seen in run 42"};
    if (target) r.evidence.artifacts.push_back(*target);
    auto c = review.ProposeExperience(r, "tester");
    EXPECT_TRUE(c.ok()) << testing::Describe(c);
    return c.ok() ? *c : ArtifactCandidate{};
  }

  std::string Prepared(const std::string& query) {
    auto p = context.Prepare({scope, query, 8000, SearchMode::kAuto, true, std::nullopt});
    EXPECT_TRUE(p.ok()) << testing::Describe(p);
    return p.ok() ? p->content : "";
  }

  size_t Found(const std::string& query) {
    auto hits = review.SearchExperience(scope, query, 10);
    EXPECT_TRUE(hits.ok()) << testing::Describe(hits);
    return hits.ok() ? hits->size() : 0;
  }
};

TEST_F(ReviewTest, ProposeReviseApprove) {
  ArtifactCandidate c = Propose("Run the contract tests after changing any YAML file.");
  EXPECT_EQ(c.status, CandidateStatus::kPending);
  EXPECT_EQ(c.current.version, 1);
  EXPECT_EQ(c.current.actor, "tester");
  EXPECT_EQ(Found("contract tests YAML"), 0u) << "a pending candidate is not searchable";
  EXPECT_EQ(Prepared("contract tests YAML").find("Run the contract tests"), std::string::npos)
      << "a pending candidate never reaches prepared context";

  ReviseCandidateRequest rev{scope,
                             c.candidate_id,
                             1,
                             Lesson("Run the contract tests after changing openapi/orders.yaml."),
                             RunEvidence(),
                             std::nullopt,
                             "narrowed"};
  auto revised = review.Revise(rev, "reviewer");
  PC_ASSERT_OK(revised);
  EXPECT_EQ(revised->current.version, 2);
  EXPECT_EQ(revised->status, CandidateStatus::kPending);

  // Version 1 stays as it was.
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto v1, txn.FindCandidateVersion(revised->scope_id, c.candidate_id, 1));
    EXPECT_TRUE(v1);
    if (v1) {
      EXPECT_EQ(v1->proposal.lesson, "Run the contract tests after changing any YAML file.");
    }
    return Status::Ok();
  }));

  auto stale = review.Approve(scope, c.candidate_id, 1, "reviewer");
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), Code::kCandidateConflict);

  auto approved = review.Approve(scope, c.candidate_id, 2, "reviewer");
  PC_ASSERT_OK(approved);
  EXPECT_EQ(approved->status, CandidateStatus::kApproved);
  ASSERT_TRUE(approved->result);
  EXPECT_EQ(approved->result->family, kExperienceFamily);
  EXPECT_EQ(approved->result->revision, 1);

  auto e = review.GetExperience(scope, *approved->result);
  PC_ASSERT_OK(e);
  EXPECT_EQ(e->content.lesson, "Run the contract tests after changing openapi/orders.yaml.")
      << "exactly version 2";
  EXPECT_EQ(e->evidence, RunEvidence());
  EXPECT_EQ(e->actor, "reviewer");

  EXPECT_EQ(Found("contract tests openapi"), 1u);
  const std::string content = Prepared("contract tests openapi");
  EXPECT_NE(content.find("openapi/orders.yaml"), std::string::npos) << content;
  EXPECT_NE(content.find("\"kind\":\"experience\""), std::string::npos) << content;
  EXPECT_NE(content.find(approved->result->artifact_id), std::string::npos)
      << "cited by its exact ArtifactRef";

  // Decided is terminal.
  for (auto again : {review.Approve(scope, c.candidate_id, 2, "r"),
                     review.Reject(scope, c.candidate_id, 2, "late")}) {
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().code(), Code::kCandidateConflict);
  }
  rev.expected_version = 2;
  auto late = review.Revise(rev, "r");
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), Code::kCandidateConflict);
}

TEST_F(ReviewTest, RejectWritesNoArtifact) {
  ArtifactCandidate c = Propose("Skip the contract tests when in a hurry.");
  auto bad = review.Reject(scope, c.candidate_id, 1, "  ");
  ASSERT_FALSE(bad.ok()) << "a rejection needs a reason";
  auto rejected = review.Reject(scope, c.candidate_id, 1, "unsafe generalisation");
  PC_ASSERT_OK(rejected);
  EXPECT_EQ(rejected->status, CandidateStatus::kRejected);
  EXPECT_EQ(rejected->decision_reason, "unsafe generalisation");
  EXPECT_FALSE(rejected->result);
  EXPECT_EQ(Found("contract tests hurry"), 0u);
  auto listed = review.List({scope, CandidateStatus::kRejected, "", std::nullopt, 50});
  PC_ASSERT_OK(listed);
  ASSERT_EQ(listed->items.size(), 1u);
  auto pending = review.List({scope, CandidateStatus::kPending, "", std::nullopt, 50});
  PC_ASSERT_OK(pending);
  EXPECT_TRUE(pending->items.empty());
}

TEST_F(ReviewTest, TargetCompareAndSet) {
  ArtifactCandidate first = Propose("Run the contract tests after changing the OpenAPI document.");
  auto approved = review.Approve(scope, first.candidate_id, 1, "r");
  PC_ASSERT_OK(approved);
  const MemoryRef head = *approved->result;

  // Two replacements proposed against the same head: the first approval wins, the second is a
  // typed conflict and stays pending, nothing merged.
  ArtifactCandidate a = Propose("Regenerate the client, then run the contract tests.", head);
  ArtifactCandidate b = Propose("Run the contract tests twice.", head);
  auto won = review.Approve(scope, a.candidate_id, 1, "r");
  PC_ASSERT_OK(won);
  EXPECT_EQ(won->result->artifact_id, head.artifact_id);
  EXPECT_EQ(won->result->revision, 2);
  auto lost = review.Approve(scope, b.candidate_id, 1, "r");
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), Code::kArtifactConflict);
  auto still = review.Get(scope, b.candidate_id);
  PC_ASSERT_OK(still);
  EXPECT_EQ(still->status, CandidateStatus::kPending);

  // Only the head is current: one Experience, at revision 2.
  auto hits = review.SearchExperience(scope, "contract tests", 10);
  PC_ASSERT_OK(hits);
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].experience.ref.revision, 2);
  // Revision 1 stays readable exactly.
  auto old = review.GetExperience(scope, head);
  PC_ASSERT_OK(old);
  EXPECT_EQ(old->content.lesson, "Run the contract tests after changing the OpenAPI document.");

  // A proposal against a head that already moved is refused when it is made.
  ProposeExperienceRequest r{scope, Lesson("x"), RunEvidence(), head, std::nullopt};
  r.evidence.artifacts.push_back(head);
  auto refused = review.ProposeExperience(r, "t");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kArtifactConflict);
}

TEST_F(ReviewTest, ApprovalIsAtomic) {
  ArtifactCandidate c = Propose("Keep the generated client in the repository.");
  PC_ASSERT_OK(
      f.ExecBehindTheStore("CREATE TRIGGER fail_exp BEFORE INSERT ON experience_contents BEGIN "
                           "SELECT RAISE(ABORT, 'disk on fire'); END;",
                           "CREATE FUNCTION fail_exp() RETURNS trigger LANGUAGE plpgsql AS $$ "
                           "BEGIN RAISE EXCEPTION 'disk on fire'; END $$;"
                           " CREATE TRIGGER fail_exp BEFORE INSERT ON experience_contents FOR EACH "
                           "ROW EXECUTE FUNCTION fail_exp();"));
  auto failed = review.Approve(scope, c.candidate_id, 1, "r");
  ASSERT_FALSE(failed.ok());
  auto still = review.Get(scope, c.candidate_id);
  PC_ASSERT_OK(still);
  EXPECT_EQ(still->status, CandidateStatus::kPending) << "the candidate stays pending";
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(auto heads, txn.ListExperienceHeads(still->scope_id, 10));
    EXPECT_TRUE(heads.empty());
    PC_ASSIGN_OR_RETURN(auto families, txn.CountArtifactsByFamily(still->scope_id));
    for (const auto& fam : families)
      EXPECT_NE(fam.name, kExperienceFamily) << "no Experience artifact left behind";
    return Status::Ok();
  }));
  PC_ASSERT_OK(f.ExecBehindTheStore("DROP TRIGGER fail_exp;",
                                    "DROP TRIGGER fail_exp ON experience_contents;"));
  PC_ASSERT_OK(review.Approve(scope, c.candidate_id, 1, "r"));
}

TEST_F(ReviewTest, BadInputChangesNothing) {
  std::string other = f.NewScope("project:other");
  ASSERT_TRUE(sources.Add(other, {{"chat", "", "elsewhere", "{}", "o-1"}}).ok());
  auto refused = [&](ProposeExperienceRequest r, const std::string& field) {
    auto c = review.ProposeExperience(r, "t");
    ASSERT_FALSE(c.ok()) << field;
    EXPECT_EQ(c.status().code() == Code::kInvalidArgument || c.status().code() == Code::kTooLarge,
              true)
        << c.status().ToString();
    bool named = false;
    for (const Detail& d : c.status().details())
      named = named || (d.key == "field" && std::get<std::string>(d.value).rfind(field, 0) == 0);
    EXPECT_TRUE(named) << field << ": " << c.status().ToString();
  };
  refused({scope, Lesson("ok"), Evidence{}, std::nullopt, std::nullopt}, "source_refs");
  refused({scope, Lesson("ok"), Evidence{{{kContentSourceName, "no-such-source"}}, {}},
           std::nullopt, std::nullopt},
          "source_refs[0]");
  refused({scope, Lesson("ok"), Evidence{{{kContentSourceName, "o-1"}}, {}}, std::nullopt,
           std::nullopt},
          "source_refs[0]");  // another scope's source
  refused({scope, Lesson("ok"), Evidence{{{"file", "run-42"}}, {}}, std::nullopt, std::nullopt},
          "source_refs[0].name");
  refused({scope, Lesson("   "), RunEvidence(), std::nullopt, std::nullopt}, "proposal.lesson");
  refused({scope, Lesson(std::string(8001, 'x')), RunEvidence(), std::nullopt, std::nullopt},
          "proposal.lesson");
  refused({scope, Lesson(std::string("\xff\xfe")), RunEvidence(), std::nullopt, std::nullopt},
          "proposal.lesson");
  refused({scope, Lesson("ok"), Evidence{{}, {{kMemoryFamily, "mem_nope", 1}}}, std::nullopt,
           std::nullopt},
          "artifact_refs[0]");
  refused(
      {scope, Lesson("ok"), RunEvidence(), MemoryRef{kExperienceFamily, "exp_x", 1}, std::nullopt},
      "target");
  Evidence many;
  for (int i = 0; i < 33; ++i)
    many.sources.push_back({kContentSourceName, "run-" + std::to_string(i)});
  refused({scope, Lesson("ok"), many, std::nullopt, std::nullopt}, "source_refs");
  refused({scope, Lesson("ok"), RunEvidence(), std::nullopt, std::string(2001, 'r')}, "reason");

  auto missing = review.Get(scope, "cand_missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  auto odd = review.Get(scope, "has space");
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), Code::kInvalidArgument);
  auto zero = review.Approve(scope, "cand_missing", 0, "r");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), Code::kInvalidArgument);

  auto page = review.List({scope, CandidateStatus::kPending, "", std::nullopt, 50});
  PC_ASSERT_OK(page);
  EXPECT_TRUE(page->items.empty()) << "nothing was written";
}

TEST_F(ReviewTest, ListPagesAndCounts) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(Propose("Lesson " + std::to_string(i) + ".").candidate_id);
  PC_ASSERT_OK(review.Reject(scope, ids[4], 1, "duplicate"));
  PC_ASSERT_OK(review.Approve(scope, ids[3], 1, "r"));
  std::vector<std::string> seen;
  std::optional<std::string> cursor;
  do {
    auto page = review.List({scope, CandidateStatus::kPending, kExperienceFamily, cursor, 2});
    PC_ASSERT_OK(page);
    EXPECT_LE(page->items.size(), 2u);
    for (const ArtifactCandidate& c : page->items) seen.push_back(c.candidate_id);
    cursor = page->next_cursor;
  } while (cursor);
  EXPECT_EQ(seen, std::vector<std::string>(ids.begin(), ids.begin() + 3))
      << "oldest first, each once";
  auto skills = review.List({scope, CandidateStatus::kPending, kSkillFamily, std::nullopt, 50});
  PC_ASSERT_OK(skills);
  EXPECT_TRUE(skills->items.empty());

  StatsService stats{*f.store};
  auto s = stats.Get(scope, StatsPeriod::k30d, NowMillis());
  PC_ASSERT_OK(s);
  int64_t pending = 0, approved = 0, rejected = 0;
  for (const CandidateCount& c : s->inventory.candidates)
    (c.status == CandidateStatus::kPending    ? pending
     : c.status == CandidateStatus::kApproved ? approved
                                              : rejected) += c.count;
  EXPECT_EQ(pending, 3);
  EXPECT_EQ(approved, 1);
  EXPECT_EQ(rejected, 1);
}

TEST(RankExperiencesTest, ChineseAndEnglishBestFirst) {
  auto exp = [](const std::string& id, const std::string& lesson) {
    Experience e;
    e.ref = MemoryRef{kExperienceFamily, id, 1};
    e.content = ExperienceContent{"部署订单服务", "先跑迁移", "成功", lesson};
    return e;
  };
  std::vector<Experience> heads = {exp("exp_a", "Always run the migration before deploying."),
                                   exp("exp_b", "数据库迁移要在部署前完成，否则回滚很慢。"),
                                   exp("exp_c", "Unrelated: brew coffee.")};
  auto zh = RankExperiences(heads, AnalyzeQuery("迁移 回滚").terms, 10);
  ASSERT_FALSE(zh.empty());
  EXPECT_EQ(zh[0].experience.ref.artifact_id, "exp_b");
  auto en = RankExperiences(heads, AnalyzeQuery("migration deploying").terms, 10);
  ASSERT_FALSE(en.empty());
  EXPECT_EQ(en[0].experience.ref.artifact_id, "exp_a");
  EXPECT_TRUE(RankExperiences(heads, AnalyzeQuery("kubernetes").terms, 10).empty());
  EXPECT_EQ(RankExperiences(heads, AnalyzeQuery("the").terms, 10).size(), 0u)
      << "stop words alone match nothing";
}

}  // namespace
}  // namespace pc

namespace pc {
namespace {

// Reviewers racing on one candidate: exactly one wins, every loser is candidate_conflict (never
// not_found). A review suggested that on PostgreSQL a concurrent revise could make the locked join
// of head and version vanish under READ COMMITTED; the scope row a write locks first already
// serializes them (this test passed with the joined lock too), and the head is now locked alone.
TEST(ReviewRace, ConcurrentReviewWritesLoseWithAConflict) {
  testing::Fixture f;
  const std::string scope = f.NewScope("project:race");
  SourceService sources{*f.store};
  ReviewService review{*f.store};
  ASSERT_TRUE(sources.Add(scope, {{"chat", "", "evidence", "{}", "e-1"}}).ok());
  ProposeExperienceRequest p{scope, ExperienceContent{"s", "a", "o", "l"},
                             Evidence{{{kContentSourceName, "e-1"}}, {}}, std::nullopt,
                             std::nullopt};
  auto c = review.ProposeExperience(p, "t");
  PC_ASSERT_OK(c);
  std::atomic<int> won{0}, conflicts{0}, other{0};
  std::vector<std::thread> reviewers;
  for (int i = 0; i < 6; ++i)
    reviewers.emplace_back([&, i] {
      ReviseCandidateRequest r{
          scope,       c->candidate_id,
          1,           ExperienceContent{"s", "a", "o", "lesson " + std::to_string(i)},
          p.evidence,  std::nullopt,
          std::nullopt};
      auto out = i % 2 ? review.Revise(r, "r") : review.Approve(scope, c->candidate_id, 1, "r");
      if (out.ok())
        ++won;
      else if (out.status().code() == Code::kCandidateConflict)
        ++conflicts;
      else
        ++other;
    });
  for (auto& t : reviewers) t.join();
  EXPECT_EQ(won, 1);
  EXPECT_EQ(conflicts, 5);
  EXPECT_EQ(other, 0) << "a loser answered something other than candidate_conflict";
}

}  // namespace
}  // namespace pc
