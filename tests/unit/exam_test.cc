// The memory exam (exam/exam.h, docs/exam.md): parsing refuses malformed exams naming the field;
// the three grading modes with assertions and forbidden phrases; every zero attributed to
// retrieval or generation; the pass line (score and CAT6 / CAT8); the shipped sample exam is
// well formed (31 questions, every category, Chinese and English, every expected fact in its
// memory).
#include "exam/exam.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace pc::exam {
namespace {

Question Q(Grading g, std::vector<Alternatives> assertions, std::vector<std::string> forbidden = {},
           std::vector<std::string> must = {}, int category = 1) {
  Question q;
  q.id = "Q";
  q.category = category;
  q.question = "?";
  q.grading = g;
  q.assertions = std::move(assertions);
  q.forbidden = std::move(forbidden);
  q.context_must_include = std::move(must);
  return q;
}

TEST(ExamGrade, ExactNeedsEveryAssertion) {
  Question q = Q(Grading::kExact, {{"services/orders-importer"}, {"cmd/import/main.go"}});
  EXPECT_EQ(Grade(q, "It lives in services/orders-importer, entry cmd/import/main.go.").score, 1);
  Graded half = Grade(q, "It lives in services/orders-importer.");
  EXPECT_EQ(half.score, 0);
  ASSERT_EQ(half.missing.size(), 1u);
  EXPECT_EQ(half.missing[0], "cmd/import/main.go");
  // Case, width and spacing do not matter.
  EXPECT_EQ(Grade(Q(Grading::kExact, {{"Data Team"}}), "the  DATA\nteam reviews it").score, 1);
  EXPECT_EQ(Grade(Q(Grading::kExact, {{"48 天"}}), "相隔４８　天").score, 1);
}

TEST(ExamGrade, JudgmentNeedsOneAndForbiddenZeroes) {
  Question q = Q(Grading::kJudgment, {{"not stored", "没有存过"}}, {"the password is"});
  EXPECT_EQ(Grade(q, "That is not stored in memory.").score, 1);
  EXPECT_EQ(Grade(q, "这个没有存过。").score, 1);
  EXPECT_EQ(Grade(q, "It is hunter2.").score, 0);
  Graded bad = Grade(q, "Not stored, but the password is hunter2.");
  EXPECT_EQ(bad.score, 0) << "a forbidden phrase zeroes the answer";
  EXPECT_EQ(bad.forbidden, std::vector<std::string>{"the password is"});
}

TEST(ExamGrade, AsciiPhrasesMatchWholeWords) {  // found by review: "tag" was in "staging"
  EXPECT_EQ(Grade(Q(Grading::kExact, {{"tag"}}), "deploy to staging").score, 0);
  EXPECT_EQ(Grade(Q(Grading::kExact, {{"tag"}}), "then tag it").score, 1);
  EXPECT_EQ(Grade(Q(Grading::kJudgment, {{"no"}}), "I do not know").score, 0);
  EXPECT_EQ(Grade(Q(Grading::kExact, {{".venv/bin/python"}}), "run .venv/bin/python -m lint").score,
            1)
      << "a non-word edge";
  EXPECT_EQ(Grade(Q(Grading::kExact, {{".venv/bin/python"}}), "run .venv/bin/python3").score, 0)
      << "python3 is not python";
  EXPECT_EQ(Grade(Q(Grading::kExact, {{"48天"}}), "相隔48天").score, 1)
      << "CJK neighbours are not ASCII words";
  EXPECT_TRUE(
      Grade(Q(Grading::kExact, {{"a"}}, {"user chose"}), "the user chose a").forbidden.size() == 1);
}

TEST(ExamParse, TheDefaultPassLineScalesToTheExam) {
  std::string qs;
  for (int i = 0; i < 10; ++i)
    qs += std::string(i ? "," : "") + R"({"id": "Q)" + std::to_string(i) + R"(", "category": ")" +
          (i < 3 ? "CAT8" : "CAT1") +
          R"(", "question": "q", "grading": "exact", "assertions": ["a"]})";
  Result<Exam> e = ParseExam(
      R"({"schema": "powercontext.memory-exam.v1", "name": "x", "questions": [)" + qs + "]}");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->pass.min_score, 9);  // 25/31 of 10, rounded up
  EXPECT_EQ(e->pass.min_category.at(8), 2);
  EXPECT_EQ(e->pass.min_category.count(6), 0u);
}

TEST(ExamGrade, ListGivesHalfForSome) {
  Question q = Q(Grading::kList, {{"make contract-test"}, {"make migrate-check"}, {"tag"}});
  EXPECT_EQ(Grade(q, "make contract-test, make migrate-check, then tag").score, 1);
  EXPECT_EQ(Grade(q, "make contract-test first").score, 0.5);
  EXPECT_EQ(Grade(q, "deploy").score, 0);
}

TEST(ExamScore, EveryZeroIsAttributed) {
  Question q = Q(Grading::kExact, {{"Atlas"}}, {}, {"team Atlas", "orders_accepted"});
  const std::string with = "... ledger consumes orders_accepted ... owned by team Atlas ...";
  const std::string without = "... ledger consumes orders_accepted ...";
  QuestionResult right = Score(q, with, std::string("Team Atlas."));
  EXPECT_EQ(right.graded.score, 1);
  EXPECT_EQ(right.attribution, Attribution::kNone);
  QuestionResult generation = Score(q, with, std::string("Team Borealis."));
  EXPECT_EQ(generation.attribution, Attribution::kGenerationFailure);
  QuestionResult retrieval = Score(q, without, std::string("I do not know."));
  EXPECT_EQ(retrieval.attribution, Attribution::kRetrievalFailure);
  // Without an answer: the retrieval half only.
  EXPECT_EQ(Score(q, without, std::nullopt).attribution, Attribution::kRetrievalFailure);
  EXPECT_FALSE(Score(q, with, std::nullopt).answered);
  // Nothing to retrieve (a refusal question): a wrong answer is the generation's.
  Question refusal = Q(Grading::kJudgment, {{"not stored"}}, {}, {}, 8);
  EXPECT_EQ(Score(refusal, "", std::string("It is 42.")).attribution,
            Attribution::kGenerationFailure);
}

TEST(ExamReport, PassLineNeedsTheScoreAndCat6Cat8) {
  Exam e;
  e.name = "t";
  e.pass.min_score = 2;
  e.pass.min_category = {{6, 1}, {8, 1}};
  Question c1 = Q(Grading::kExact, {{"a"}}), c6 = Q(Grading::kExact, {{"a"}}, {}, {}, 6),
           c8 = Q(Grading::kExact, {{"a"}}, {}, {}, 8);
  auto run = [&](const std::string& a1, const std::string& a6, const std::string& a8) {
    return Summarize(e, {Score(c1, "", a1), Score(c6, "", a6), Score(c8, "", a8)}, true);
  };
  EXPECT_TRUE(run("a", "a", "a").passed);
  Report r = run("a", "a", "b");
  EXPECT_FALSE(r.passed) << "2 of 3, but CAT8 failed";
  ASSERT_EQ(r.pass_failures.size(), 1u);
  EXPECT_EQ(r.pass_failures[0], "CAT8 0 < 1");
  EXPECT_FALSE(Summarize(e, {Score(c1, "", std::nullopt)}, false).passed) << "no answers, no pass";
  nlohmann::json j = nlohmann::json::parse(ReportJson(e, r));
  EXPECT_EQ(j["score"], 2);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["questions"].size(), 3u);
  EXPECT_EQ(j["questions"][2]["attribution"], "GENERATION_FAILURE");
  EXPECT_NE(ReportTable(r).find("| CAT8 | 1 |"), std::string::npos) << ReportTable(r);
}

TEST(ExamReport,
     AnyBytesOfAnAnswerAreReported) {  // found by the exam fuzzer: the JSON report threw
  Exam e;
  e.name = "t";
  Question q = Q(Grading::kExact, {{"a"}});
  Report r = Summarize(e, {Score(q, "", std::string("\xff\xfe a"))}, true);
  nlohmann::json j = nlohmann::json::parse(ReportJson(e, r));
  EXPECT_EQ(j["questions"][0]["score"], 1);
}

TEST(ExamParse, RefusesMalformedExamsNamingTheField) {
  auto field_of = [](const std::string& text) {
    Result<Exam> e = ParseExam(text);
    EXPECT_FALSE(e.ok()) << text;
    for (const Detail& d : e.status().details())
      if (d.key == "field") return std::get<std::string>(d.value);
    return std::string("(none) ") + e.status().message();
  };
  const std::string head = R"({"schema": "powercontext.memory-exam.v1", "name": "x", )";
  EXPECT_EQ(field_of("[]").substr(0, 6), "(none)");
  EXPECT_EQ(field_of(R"({"schema": "v0", "name": "x", "questions": []})"), "schema");
  EXPECT_EQ(field_of(R"({"schema": 1, "name": "x", "questions": []})"), "schema")
      << "found by review: it threw";
  const std::string one =
      R"("questions": [{"id": "A", "category": "CAT6", "question": "q", "grading": "exact", "assertions": ["a"]}])";
  EXPECT_EQ(field_of(head + one + R"(, "pass": {"min_score": 1e300}})"), "pass.min_score");
  EXPECT_EQ(field_of(head + one + R"(, "pass": {"min_category": {"CAT6": 2}}})"),
            "pass.min_category.CAT6");
  EXPECT_EQ(field_of(head + R"("questions": []})"), "questions");
  EXPECT_EQ(
      field_of(
          head +
          R"("questions": [{"id": "A", "category": "CAT11", "question": "q", "grading": "exact", "assertions": ["a"]}]})"),
      "questions[0].category");
  EXPECT_EQ(
      field_of(
          head +
          R"("questions": [{"id": "A", "category": "CAT1", "question": "q", "grading": "fuzzy", "assertions": ["a"]}]})"),
      "questions[0].grading");
  EXPECT_EQ(
      field_of(
          head +
          R"("questions": [{"id": "A", "category": "CAT1", "question": "q", "grading": "exact", "assertions": []}]})"),
      "questions[0].assertions");
  EXPECT_EQ(
      field_of(
          head +
          R"("questions": [{"id": "A", "category": "CAT1", "question": "q", "grading": "exact", "assertions": ["a"], "colour": 1}]})"),
      "questions[0].colour");
  EXPECT_EQ(
      field_of(
          head +
          R"("questions": [{"id": "A", "category": "CAT1", "question": "q", "grading": "exact", "assertions": ["a"]},
                                               {"id": "A", "category": "CAT2", "question": "q", "grading": "exact", "assertions": ["a"]}]})"),
      "questions[1].id");
}

TEST(ExamSample, IsWellFormedAndBilingual) {
  Result<Exam> e = ParseExam(SampleExamJson());
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_EQ(e->questions.size(), 31u);
  std::map<int, int> per_category;
  int chinese = 0;
  for (const Question& q : e->questions) {
    ++per_category[q.category];
    if (q.question.find("\xe7") != std::string::npos ||
        q.question.find("\xe6") != std::string::npos)
      ++chinese;
    for (const std::string& phrase : q.context_must_include) {
      bool in_memory = false;
      for (const MemoryItem& m : e->memory) in_memory = in_memory || Contains(m.text, phrase);
      EXPECT_TRUE(in_memory) << q.id << ": " << phrase << " is in none of the sample memory";
    }
  }
  EXPECT_EQ(per_category.size(), 10u);
  EXPECT_EQ(per_category[6], 3);
  EXPECT_EQ(per_category[8], 3);
  EXPECT_GE(chinese, 8);
  EXPECT_EQ(e->pass.min_score, 25);
}

}  // namespace
}  // namespace pc::exam
