// The daily review (docs/review.md): a day's sources through the extraction provider (a fake
// OpenAI-compatible endpoint on loopback) → Experience candidates, near-duplicate retire
// candidates, a tomorrow note in the handoff; idempotent per day; on both stores.
#include "service/review/daily_review.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/clock.h"
#include "extract/review_prompt.h"
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

class DailyReviewTest : public testing::ChatModelTest {
 protected:
  std::string scope = f.NewScope("project:daily");
  ReviewService review{*f.store};
  HandoffService handoff{*f.store, chat.get()};
  DailyReviewService daily{*f.store, chat.get(), handoff};

  void Add(const std::string& content, const std::string& key) {
    ASSERT_TRUE(sources.Add(scope, {{"work_log", "", content, "{}", key}}).ok());
  }
  // The model requests the scope's statistics count today.
  int64_t UsageRequests() {
    auto stats = StatsService(*f.store).Get(scope, StatsPeriod::kToday, NowMillis());
    EXPECT_TRUE(stats.ok());
    return stats.ok() ? stats->usage_totals.generation.requests : -1;
  }
  Citation Remember(const std::string& text) {
    auto r = f.memory->Remember({scope, "fact", text, "", "t", std::nullopt, {}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->citation ? *r->citation : Citation{};
  }
};

TEST_F(DailyReviewTest, ProposesExperiencesRetiresAndATomorrowNoteOncePerDay) {
  Citation older = Remember("The importer reads CSV files with a header row.");
  Remember("The importer reads CSV files with a header row, always.");  // nearly the same, newer
  Add("Retried the import three times; it failed on a BOM until we stripped it first.", "log-1");
  Add("Stripping the BOM fixed the import. Tomorrow: add a test for BOM files.", "log-2");
  EXPECT_TRUE(*daily.Due(scope, ""));
  fake.ScriptChat({{R"({"experiences": [
      {"situation": "CSV import of files saved by Excel", "action": "stripped the UTF-8 BOM before parsing",
       "outcome": "the import succeeded", "lesson": "strip a BOM before parsing CSV", "evidence": ["S1", "S2"]},
      {"situation": "s", "action": "a", "outcome": "o", "lesson": "l", "evidence": ["S7"]}],
    "tomorrow": {"text": "Add a test for CSV files with a BOM.", "evidence": ["S2"]}})"}});
  auto out = daily.Run(scope, "", "review:test");
  PC_ASSERT_OK(out);
  EXPECT_FALSE(out->already_reviewed);
  EXPECT_EQ(out->date, LocalDate());
  EXPECT_EQ(out->sources_reviewed, 2);
  EXPECT_EQ(out->cursor, 2);
  ASSERT_EQ(out->experience_candidates.size(), 1u);
  ASSERT_EQ(out->rejected.size(), 1u);
  EXPECT_NE(out->rejected[0].reason.find("S7"), std::string::npos);
  // What the model was asked: the review prompt, the day, the sources.
  auto request = nlohmann::json::parse(fake.chat_bodies().back());
  auto input = nlohmann::json::parse(request["messages"][1]["content"].get<std::string>());
  EXPECT_EQ(input["date"], out->date);
  EXPECT_EQ(input["sources"].size(), 2u);
  EXPECT_EQ(UsageRequests(), 1) << "the committed review counts its model request";

  auto exp = review.Get(scope, out->experience_candidates[0]);
  PC_ASSERT_OK(exp);
  EXPECT_EQ(exp->status, CandidateStatus::kPending);
  EXPECT_EQ(exp->current.proposal.lesson, "strip a BOM before parsing CSV");
  ASSERT_EQ(exp->current.evidence.sources.size(), 2u);
  EXPECT_EQ(exp->current.evidence.sources[0].source_id, "log-1");

  // The older of the two near-duplicates is proposed for retirement; approving retires it.
  ASSERT_EQ(out->retire_candidates.size(), 1u);
  auto retire = review.Get(scope, out->retire_candidates[0]);
  PC_ASSERT_OK(retire);
  ASSERT_TRUE(retire->current.memory);
  EXPECT_EQ(retire->current.memory->op, "retire");
  EXPECT_EQ(retire->current.memory->target_entry_id, older.entry_id);
  ReviseCandidateRequest edit{scope,
                              out->retire_candidates[0],
                              1,
                              {},
                              {},
                              std::nullopt,
                              std::nullopt,
                              std::make_pair(std::string("fact"), std::string("something else"))};
  EXPECT_EQ(review.Revise(edit, "reviewer").status().code(), Code::kInvalidArgument)
      << "a retire has no text to edit";
  EXPECT_NE(retire->current.reason->find("always"), std::string::npos)
      << "the reason quotes the newer entry";
  auto approved = review.Approve(scope, out->retire_candidates[0], 1, "reviewer");
  PC_ASSERT_OK(approved);
  auto entries = f.memory->ListEntries({scope, std::nullopt, false, {100, ""}, std::nullopt});
  PC_ASSERT_OK(entries);
  ASSERT_EQ(entries->items.size(), 1u);
  EXPECT_NE(entries->items[0].version.entry_id, older.entry_id);

  // The tomorrow note: a handoff revision (a new handoff: the scope had none), citing its source.
  ASSERT_TRUE(out->handoff);
  auto h = handoff.Get(scope, std::nullopt);
  PC_ASSERT_OK(h);
  ASSERT_TRUE(h->content.next_action);
  EXPECT_NE(h->content.next_action->text.find("Add a test for CSV files with a BOM."),
            std::string::npos);
  ASSERT_EQ(h->content.next_action->citations.size(), 1u);
  EXPECT_EQ(h->content.next_action->citations[0].source_id, "log-2");

  // Once per day: the same day again asks nothing and changes nothing.
  const int asked = fake.chat_requests();
  EXPECT_FALSE(*daily.Due(scope, ""));
  auto again = daily.Run(scope, "", "review:test");
  PC_ASSERT_OK(again);
  EXPECT_TRUE(again->already_reviewed);
  EXPECT_EQ(fake.chat_requests(), asked);
  auto pending = review.List({scope, CandidateStatus::kPending, "", std::nullopt, 50});
  PC_ASSERT_OK(pending);
  EXPECT_EQ(pending->items.size(), 1u);
}

// A Task Outcome is archive (never extracted into memory) but captured for reviewed Experience
// incubation (docs/work-continuity.md): the daily review reads it, and passes over other archive.
TEST_F(DailyReviewTest, ReadsTaskOutcomesButNoOtherArchiveSource) {
  Add("Stripping the BOM fixed the import.", "log-1");
  PC_ASSERT_OK(sources.Add(
      scope, {{"note", kPurposeArchive, "An archived note.", "{}", "note-1"},
              {kTaskOutcomeSourceKind, kPurposeArchive, "{\"status\":\"partial\"}", "{}", "o-1"}}));
  fake.ScriptChat({{R"({"experiences": [], "tomorrow": null})"}});
  auto out = daily.Run(scope, "", "review:test");
  PC_ASSERT_OK(out);
  EXPECT_EQ(out->sources_reviewed, 2);
  EXPECT_EQ(out->cursor, 3);
  auto request = nlohmann::json::parse(fake.chat_bodies().back());
  auto input = nlohmann::json::parse(request["messages"][1]["content"].get<std::string>());
  const std::string shown = input["sources"].dump();
  EXPECT_EQ(input["sources"].size(), 2u) << shown;
  EXPECT_NE(shown.find("partial"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("archived note"), std::string::npos) << shown;
}

TEST_F(DailyReviewTest, AnEarlierDayHasNoneOfTodaysSourcesAndBadInputChangesNothing) {
  Add("today's work", "log-1");
  auto yesterday = daily.Run(scope, "2001-01-01", "review:test");
  PC_ASSERT_OK(yesterday);
  EXPECT_EQ(yesterday->sources_reviewed, 0);
  EXPECT_EQ(fake.chat_requests(), 0);
  EXPECT_TRUE(*daily.Due(scope, "")) << "an empty day is not marked; today is still due";
  for (const char* bad : {"2026-02-30", "2026-1-05", "yesterday", "2026-13-01"}) {
    auto r = daily.Run(scope, bad, "t");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
  }
  // A model that fails: nothing proposed, the day stays due.
  fake.ScriptChat({{"not json at all"}});
  auto failed = daily.Run(scope, "", "review:test");
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(*daily.Due(scope, ""));
  auto pending = review.List({scope, CandidateStatus::kPending, "", std::nullopt, 50});
  PC_ASSERT_OK(pending);
  EXPECT_TRUE(pending->items.empty());
  EXPECT_EQ(UsageRequests(), 0)
      << "a failed review leaves the store as it was, its token count too";
  DailyReviewService none{*f.store, nullptr, handoff};
  EXPECT_EQ(none.Run(scope, "", "t").status().code(), Code::kCapabilityUnavailable);
}

// Two reviews of one scope at once (two servers: two services): the one that commits second was
// overtaken, answers Conflict, and proposes nothing; the inbox has one review's candidates.
TEST_F(DailyReviewTest, AnOvertakenReviewProposesNothing) {
  Add("Stripping the BOM fixed the import.", "log-1");
  const std::string answer =
      R"({"experiences": [{"situation": "CSV import", "action": "stripped the BOM",
      "outcome": "it worked", "lesson": "strip a BOM first", "evidence": ["S1"]}]})";
  fake.ScriptChat({{answer, 200, 600}, {answer}});  // the first asker waits; the second does not
  DailyReviewService other{*f.store, chat.get(), handoff};
  Result<DailyReviewOutcome> slow = Internal("the first review did not run");
  std::thread first([&] { slow = daily.Run(scope, "", "review:a"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  auto fast = other.Run(scope, "", "review:b");
  first.join();
  PC_ASSERT_OK(fast);
  EXPECT_EQ(fast->experience_candidates.size(), 1u);
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().code(), Code::kReviewOvertaken) << slow.status().ToString();
  auto pending = review.List({scope, CandidateStatus::kPending, "", std::nullopt, 50});
  PC_ASSERT_OK(pending);
  EXPECT_EQ(pending->items.size(), 1u) << "only the review that committed proposed";
}

TEST(DailyReviewSchedule, ParsesHoursAndMinutesOrOff) {
  EXPECT_EQ(*ParseReviewSchedule("22:30"), 22 * 60 + 30);
  EXPECT_EQ(*ParseReviewSchedule("00:00"), 0);
  EXPECT_FALSE(*ParseReviewSchedule("off"));
  for (const char* bad : {"24:00", "7:30", "22:60", "noon", "22-30"})
    EXPECT_FALSE(ParseReviewSchedule(bad).ok()) << bad;
}

TEST(DailyReviewAnswer, EachItemIsCheckedOnItsOwn) {
  auto a = ParseDailyReviewAnswer(R"({"experiences": [
      {"situation": "x", "action": "y", "outcome": "z", "lesson": "w", "evidence": ["S1"]},
      {"situation": "x", "action": "y", "outcome": "z", "evidence": ["S1"]},
      "text"], "tomorrow": {"text": "", "evidence": ["S1"]}})",
                                  1);
  PC_ASSERT_OK(a);
  EXPECT_EQ(a->experiences.size(), 1u);
  EXPECT_FALSE(a->tomorrow);
  ASSERT_EQ(a->rejected.size(), 3u);
  EXPECT_NE(a->rejected[0].reason.find("no lesson"), std::string::npos);
  EXPECT_EQ(a->rejected[1].reason, "experience: not an object");
  EXPECT_EQ(a->rejected[2].reason.rfind("tomorrow: ", 0), 0u);
  EXPECT_FALSE(ParseDailyReviewAnswer("[1, 2]", 1).ok());
  EXPECT_FALSE(ParseDailyReviewAnswer(R"({"experiences": 3})", 1).ok());
}

}  // namespace
}  // namespace pc
