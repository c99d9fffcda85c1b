// Generating an Experience (docs/review.md, "Generating an Experience"): the model (a fake
// OpenAI-compatible endpoint on loopback) reads exactly the cited evidence; a usable answer is a
// pending candidate with that evidence, {"experience": null} is a no-op, and every failure — a
// bad request, evidence the scope lacks, a moved target, a failing or unusable model — proposes
// nothing. On both stores.
#include "service/review/experience_generator.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "extract/experience_prompt.h"
#include "extract/prompt.h"
#include "fake_chat.h"
#include "fake_openai.h"
#include "providers/openai_chat_extractor.h"
#include "service/admin/stats_service.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_service.h"
#include "service/review/review_service.h"
#include "test_util.h"

namespace pc {
namespace {

using nlohmann::json;

constexpr const char* kLesson = R"({"experience": {"situation": "A CSV export saved by Excel",
  "action": "stripped the UTF-8 BOM before parsing", "outcome": "the import succeeded",
  "lesson": "strip a BOM before parsing CSV"}})";

class ExperienceGeneratorTest : public testing::ChatModelTest {
 protected:
  std::string scope = f.NewScope("project:generate");
  ReviewService review{*f.store};
  ExperienceGenerator generator{*f.store, chat.get(), review};

  void SetUp() override {
    ASSERT_TRUE(
        sources
            .Add(scope, {{"work_log", "", "The import failed on a BOM until we stripped it.", "{}",
                          "log-1"}})
            .ok());
  }
  Evidence Log() { return Evidence{{{kContentSourceName, "log-1"}}, {}}; }
  size_t Pending() {
    auto page = review.List({scope, CandidateStatus::kPending, "", std::nullopt, 50});
    EXPECT_TRUE(page.ok());
    return page.ok() ? page->items.size() : 0;
  }
  // The model requests the scope's statistics count today.
  int64_t UsageRequests() {
    auto stats = StatsService(*f.store).Get(scope, StatsPeriod::kToday, NowMillis());
    EXPECT_TRUE(stats.ok());
    return stats.ok() ? stats->usage_totals.generation.requests : -1;
  }
  // What the model was shown in its last request.
  json LastInput() {
    auto request = json::parse(fake.chat_bodies().back());
    return json::parse(request["messages"][1]["content"].get<std::string>());
  }
};

TEST_F(ExperienceGeneratorTest, AUsableAnswerIsAPendingCandidateWithExactlyTheCitedEvidence) {
  auto remembered = f.memory->Remember(
      {scope, "fact", "CSV files come from Excel exports.", "", "t", std::nullopt, {}});
  PC_ASSERT_OK(remembered);
  fake.ScriptChat({{kLesson}});
  Evidence evidence = Log();
  evidence.artifacts.push_back(remembered->memory);
  auto out = generator.Generate({scope, evidence, std::nullopt, std::nullopt}, "generate:tester");
  PC_ASSERT_OK(out);
  ASSERT_TRUE(out->candidate);
  const ArtifactCandidate& c = *out->candidate;
  EXPECT_EQ(c.status, CandidateStatus::kPending);
  EXPECT_EQ(c.current.version, 1);
  EXPECT_EQ(c.current.proposal.lesson, "strip a BOM before parsing CSV");
  EXPECT_EQ(c.current.evidence, evidence) << "the caller's evidence, exactly";
  EXPECT_EQ(c.current.actor, "generate:tester");
  ASSERT_TRUE(c.current.reason);
  EXPECT_NE(c.current.reason->find("experience_v1"), std::string::npos) << *c.current.reason;
  EXPECT_EQ(Pending(), 1u);
  EXPECT_EQ(UsageRequests(), 1) << "a successful generation counts its model request";
  // The model saw the cited source as S1 and the memory revision's entries as E1…, nothing else.
  json in = LastInput();
  ASSERT_EQ(in["sources"].size(), 1u);
  EXPECT_EQ(in["sources"][0]["id"], "S1");
  EXPECT_NE(in["sources"][0]["text"].get<std::string>().find("BOM"), std::string::npos);
  ASSERT_EQ(in["entries"].size(), 1u);
  EXPECT_EQ(in["entries"][0]["text"], "CSV files come from Excel exports.");
  EXPECT_TRUE(in["artifacts"].empty());
  EXPECT_FALSE(in.contains("replaces"));
  // Nothing approves itself: the Experience exists only after a reviewer approves.
  EXPECT_TRUE(review.SearchExperience(scope, "BOM CSV", 10)->empty());
  PC_ASSERT_OK(review.Approve(scope, c.candidate_id, 1, "reviewer"));
  EXPECT_EQ(review.SearchExperience(scope, "BOM CSV", 10)->size(), 1u);
}

TEST_F(ExperienceGeneratorTest, ReplacingAnExperienceShowsItAndStaysACompareAndSet) {
  fake.ScriptChat({{kLesson}});
  auto first = generator.Generate({scope, Log(), std::nullopt, "first"}, "t");
  PC_ASSERT_OK(first);
  ASSERT_TRUE(first->candidate);
  EXPECT_EQ(*first->candidate->current.reason, "first") << "the caller's reason is kept";
  auto approved = review.Approve(scope, first->candidate->candidate_id, 1, "reviewer");
  PC_ASSERT_OK(approved);
  const MemoryRef head = *approved->result;

  fake.ScriptChat(
      {{R"({"experience": {"situation": "s2", "action": "a2", "outcome": "o2", "lesson": "l2"}})"}});
  Evidence evidence = Log();
  evidence.artifacts.push_back(head);
  auto second = generator.Generate({scope, evidence, head, std::nullopt}, "t");
  PC_ASSERT_OK(second);
  ASSERT_TRUE(second->candidate);
  EXPECT_EQ(second->candidate->current.target, head);
  json in = LastInput();
  ASSERT_EQ(in["artifacts"].size(), 1u);
  EXPECT_EQ(in["artifacts"][0]["family"], "experience");
  EXPECT_NE(in["artifacts"][0]["text"].get<std::string>().find("strip a BOM"), std::string::npos);
  EXPECT_EQ(in["replaces"], "A1");
  PC_ASSERT_OK(review.Approve(scope, second->candidate->candidate_id, 1, "reviewer"));

  // The old head is no longer the head: refused before the model is asked.
  const int asked = fake.chat_requests();
  auto stale = generator.Generate({scope, evidence, head, std::nullopt}, "t");
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), Code::kArtifactConflict) << stale.status().ToString();
  EXPECT_EQ(fake.chat_requests(), asked);
}

TEST_F(ExperienceGeneratorTest, ANullExperienceIsANoOpAndProposesNothing) {
  fake.ScriptChat({{R"({"experience": null})"}});
  auto out = generator.Generate({scope, Log(), std::nullopt, std::nullopt}, "t");
  PC_ASSERT_OK(out);
  EXPECT_FALSE(out->candidate);
  EXPECT_EQ(Pending(), 0u);
}

TEST_F(ExperienceGeneratorTest, AFailingOrUnusableModelProposesNothing) {
  for (const char* answer :
       {"not json at all", R"({"experiences": []})", R"({"experience": "a lesson"})",
        R"({"experience": {"situation": "s", "action": "a", "outcome": "o"}})",
        R"({"experience": {"situation": "s", "action": "a", "outcome": "o", "lesson": "  "}})"}) {
    fake.ScriptChat({{answer}});
    auto out = generator.Generate({scope, Log(), std::nullopt, std::nullopt}, "t");
    ASSERT_FALSE(out.ok()) << answer;
    EXPECT_EQ(out.status().code(), Code::kProviderError)
        << answer << ": " << out.status().ToString();
  }
  // An endpoint that answers an HTTP error is the provider's error; one that does not answer in
  // time is unavailable (the fake chat extractor waits 1 s, and tries twice).
  fake.ScriptChat({{"", 500}, {"", 500}});
  auto failed = generator.Generate({scope, Log(), std::nullopt, std::nullopt}, "t");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), Code::kProviderError) << failed.status().ToString();
  EXPECT_NE(failed.status().message().find("nothing was proposed"), std::string::npos)
      << failed.status().ToString();
  fake.ScriptChat({{kLesson, 200, 1500}, {kLesson, 200, 1500}});
  auto slow = generator.Generate({scope, Log(), std::nullopt, std::nullopt}, "t");
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().code(), Code::kProviderUnavailable) << slow.status().ToString();
  EXPECT_EQ(Pending(), 0u);
  // A failed request leaves the store as it was: not even the model's token count is recorded.
  EXPECT_EQ(UsageRequests(), 0) << "usage of failed generations";
}

TEST_F(ExperienceGeneratorTest, BadRequestsAndMissingEvidenceAreRefusedBeforeTheModelIsAsked) {
  const MemoryRef missing{kExperienceFamily, "exp_missing", 1};
  const Evidence none;
  Evidence unknown_source{{{kContentSourceName, "log-9"}}, {}};
  Evidence unknown_artifact = Log();
  unknown_artifact.artifacts.push_back(missing);
  Evidence twice = Log();
  twice.sources.push_back(twice.sources[0]);
  Evidence other_type{{{"file", "log-1"}}, {}};
  struct Case {
    GenerateExperienceRequest req;
    Code code;
  };
  for (const Case& c : std::vector<Case>{
           {{scope, none, std::nullopt, std::nullopt}, Code::kInvalidArgument},
           {{scope, unknown_source, std::nullopt, std::nullopt}, Code::kInvalidArgument},
           {{scope, unknown_artifact, std::nullopt, std::nullopt}, Code::kInvalidArgument},
           {{scope, twice, std::nullopt, std::nullopt}, Code::kInvalidArgument},
           {{scope, other_type, std::nullopt, std::nullopt}, Code::kInvalidArgument},
           {{scope, Log(), missing, std::nullopt},
            Code::kInvalidArgument},  // a target not among the evidence
           {{scope, Log(), std::nullopt, std::string(3000, 'r')}, Code::kTooLarge},
           {{"project:nobody", Log(), std::nullopt, std::nullopt}, Code::kInvalidArgument},
           {{" ", Log(), std::nullopt, std::nullopt}, Code::kInvalidArgument}}) {
    auto out = generator.Generate(c.req, "t");
    ASSERT_FALSE(out.ok()) << c.req.scope_id;
    EXPECT_EQ(out.status().code(), c.code) << out.status().ToString();
  }
  EXPECT_EQ(fake.chat_requests(), 0);
  EXPECT_EQ(Pending(), 0u);

  ExperienceGenerator without_model{*f.store, nullptr, review};
  auto unavailable = without_model.Generate({scope, Log(), std::nullopt, std::nullopt}, "t");
  ASSERT_FALSE(unavailable.ok());
  EXPECT_EQ(unavailable.status().code(), Code::kCapabilityUnavailable);
}

// A cited memory with more active entries than the prompt holds: the first 40 are shown, and the
// model is told the list is cut (so that it does not take an absence for a fact).
TEST_F(ExperienceGeneratorTest, AMemoryLargerThanThePromptIsShownCutAndSaysSo) {
  MemoryRef memory;
  for (size_t i = 0; i <= kMaxPromptEntries; ++i) {
    auto w = f.memory->Remember({scope,
                                 "fact",
                                 "Import rule " + std::to_string(i) + ": column " +
                                     std::to_string(i * 7) + " is " +
                                     std::string(i % 2 ? "required" : "optional") + ".",
                                 "",
                                 "t",
                                 std::nullopt,
                                 {}});
    PC_ASSERT_OK(w);
    memory = w->memory;
  }
  fake.ScriptChat({{R"({"experience": null})"}, {R"({"experience": null})"}});
  Evidence evidence;
  evidence.artifacts.push_back(memory);
  PC_ASSERT_OK(generator.Generate({scope, evidence, std::nullopt, std::nullopt}, "t"));
  json in = LastInput();
  EXPECT_EQ(in["entries"].size(), kMaxPromptEntries);
  EXPECT_EQ(in["entries_cut"], true);
  // The revision before the last holds exactly 40: all shown, nothing said.
  evidence.artifacts = {MemoryRef{memory.family, memory.artifact_id, memory.revision - 1}};
  PC_ASSERT_OK(generator.Generate({scope, evidence, std::nullopt, std::nullopt}, "t"));
  in = LastInput();
  EXPECT_EQ(in["entries"].size(), kMaxPromptEntries);
  EXPECT_FALSE(in.contains("entries_cut"));
}

TEST_F(ExperienceGeneratorTest, AHandoffRevisionIsShownAsItsStatements) {
  HandoffService handoffs{*f.store, nullptr};
  HandoffContent content;
  content.objective = "Finish the CSV importer";
  HandoffCitation cite;
  cite.kind = HandoffCitationKind::kSource;
  cite.source_name = kContentSourceName;
  cite.source_id = "log-1";
  content.state.push_back({"The BOM is stripped before parsing.", {cite}});
  auto prepared = handoffs.Finalize(scope, content);
  PC_ASSERT_OK(prepared);
  auto committed = handoffs.Commit(scope, *prepared, "t");
  PC_ASSERT_OK(committed);
  fake.ScriptChat({{R"({"experience": null})"}});
  Evidence evidence;
  evidence.artifacts.push_back(committed->handoff.ref);
  PC_ASSERT_OK(generator.Generate({scope, evidence, std::nullopt, std::nullopt}, "t"));
  json in = LastInput();
  ASSERT_EQ(in["artifacts"].size(), 1u);
  EXPECT_EQ(in["artifacts"][0]["family"], "handoff");
  EXPECT_NE(
      in["artifacts"][0]["text"].get<std::string>().find("The BOM is stripped before parsing."),
      std::string::npos);
  EXPECT_TRUE(in["sources"].empty());
}

}  // namespace
}  // namespace pc
