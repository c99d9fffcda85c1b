// `powercontext exam run` as the real binary against a real server, with the fake model answering
// (tests control each answer): the sample exam loaded into a scope and passed with right answers;
// wrong answers attributed GENERATION_FAILURE (the fact was in the context) and failing the pass
// line on CAT8; a scope without the facts attributed RETRIEVAL_FAILURE; the retrieval half without
// a provider; bad input refused with a message and a non-zero exit.
#include "exam/exam.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using Json = nlohmann::json;

class ExamCli : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>(dir_.path() + "/data");
    ASSERT_TRUE(server_->Start());
    auto parsed = exam::ParseExam(exam::SampleExamJson());
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    exam_ = *parsed;
    // A right answer says every assertion's first phrase and nothing forbidden.
    for (const exam::Question& q : exam_.questions) {
      std::string a;
      for (const exam::Alternatives& alt : q.assertions) a += alt.front() + "; ";
      answers_[q.question] = a;
    }
    fake_.set_chat_responder([this](const std::string& body) {
      Json request = Json::parse(body);
      const std::string content = request["messages"][1]["content"];
      const std::string question = content.substr(content.rfind("Question: ") + 10);
      std::lock_guard<std::mutex> lock(mu_);
      auto it = answers_.find(question);
      return FakeOpenAi::ChatReply(it == answers_.end() ? "I do not know." : it->second);
    });
  }

  CliResult Exam(const std::string& scope, std::vector<std::string> extra) {
    std::vector<std::string> args = {"exam",     "run",          "--scope", scope,
                                     "--server", server_->url(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCli(args);
  }
  std::vector<std::string> Model() {
    return {"--answer-provider", "openai",    "--answer-base-url",        fake_.base_url(),
            "--answer-model",    "fake-chat", "--answer-timeout-seconds", "10"};
  }
  void Answer(const std::string& id, const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const exam::Question& q : exam_.questions)
      if (q.id == id) answers_[q.question] = text;
  }
  static std::map<std::string, Json> ById(const Json& report) {
    std::map<std::string, Json> out;
    for (const Json& q : report["questions"]) out[q["id"]] = q;
    return out;
  }

  TempDir dir_;
  FakeOpenAi fake_;
  std::unique_ptr<ServerProcess> server_;
  exam::Exam exam_;
  std::mutex mu_;
  std::map<std::string, std::string> answers_;
};

TEST_F(ExamCli, SampleExamPassesWithRightAnswersAndAttributesWrongOnes) {
  std::vector<std::string> args = Model();
  args.insert(args.end(), {"--exam", "sample", "--load"});
  CliResult right = Exam("project:exam", args);
  ASSERT_EQ(right.exit_code, 0) << right.err << right.out;
  Json report = Json::parse(right.out);
  EXPECT_EQ(report["out_of"], 31);
  EXPECT_EQ(report["score"], 31.0);
  EXPECT_EQ(report["passed"], true);
  int retrieved = 0, expecting = 0;
  for (const exam::Question& q : exam_.questions)
    if (!q.context_must_include.empty()) {
      ++expecting;
      retrieved += ById(report)[q.id]["retrieved"].get<bool>();
    }
  EXPECT_EQ(retrieved, expecting) << "every fact of the sample reaches the prepared context: "
                                  << right.out;

  // Loading again changes nothing (remember is idempotent), and wrong answers are the model's.
  Answer("Q05", "Team Borealis.");                   // retrieved, answered wrong
  Answer("Q23", "The password is hunter2.");         // CAT8: it invents
  Answer("Q24", "我们用的是某家云。");               // CAT8
  Answer("Q17", "Yes, they are stored as floats.");  // CAT6: accepts the false premise
  CliResult wrong = Exam("project:exam", args);
  EXPECT_EQ(wrong.exit_code, 1) << wrong.err;
  Json failed = Json::parse(wrong.out);
  EXPECT_EQ(failed["passed"], false);
  EXPECT_EQ(failed["score"], 27.0);
  auto by_id = ById(failed);
  for (const char* id : {"Q05", "Q23", "Q24", "Q17"}) {
    EXPECT_EQ(by_id[id]["score"], 0.0) << id;
    EXPECT_EQ(by_id[id]["attribution"], "GENERATION_FAILURE") << id;
  }
  bool cat8 = false;
  for (const Json& f : failed["pass_failures"])
    cat8 = cat8 || f.get<std::string>().rfind("CAT8", 0) == 0;
  EXPECT_TRUE(cat8) << failed["pass_failures"].dump()
                    << ": 27 of 31 passes the score, CAT8 1 of 3 does not";
  CliResult table = RunCli(
      {"exam", "run", "--scope", "project:exam", "--server", server_->url(), "--exam", "sample"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("| CAT10 | 3 |"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("retrieval only"), std::string::npos) << table.out;
}

TEST_F(ExamCli, AScopeWithoutTheFactsIsRetrievalFailure) {
  for (const exam::Question& q : exam_.questions) Answer(q.id, "I do not know.");
  std::vector<std::string> args = Model();
  args.insert(args.end(), {"--exam", "sample"});
  CliResult r = Exam("project:empty", args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  Json report = Json::parse(r.out);
  EXPECT_EQ(report["score"], 0.0);
  for (const exam::Question& q : exam_.questions) {
    const Json item = ById(report)[q.id];
    EXPECT_EQ(item["attribution"],
              q.context_must_include.empty() ? "GENERATION_FAILURE" : "RETRIEVAL_FAILURE")
        << q.id;
  }
  // Without a provider: the retrieval half, no score, exit 0.
  CliResult half = Exam("project:empty", {"--exam", "sample"});
  EXPECT_EQ(half.exit_code, 0) << half.err;
  Json h = Json::parse(half.out);
  EXPECT_EQ(h["answered"], false);
  EXPECT_TRUE(h["score"].is_null());
}

TEST_F(ExamCli, BadInputIsRefusedWithAMessage) {
  CliResult missing = Exam("project:x", {"--exam", dir_.path() + "/no-such-exam.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.err;
  const std::string bad = dir_.path() + "/bad.json";
  std::ofstream(bad) << R"({"schema": "powercontext.memory-exam.v1", "name": "x", "questions": [
      {"id": "A", "category": "CAT12", "question": "q", "grading": "exact", "assertions": ["a"]}]})";
  CliResult invalid = Exam("project:x", {"--exam", bad});
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_NE(invalid.err.find("questions[0].category"), std::string::npos) << invalid.err;
  CliResult provider = Exam("project:x", {"--answer-provider", "oracle"});
  EXPECT_EQ(provider.exit_code, 2);
  EXPECT_NE(provider.err.find("--answer-provider"), std::string::npos) << provider.err;
  CliResult load = Exam("project:x", {"--exam", bad, "--load"});
  EXPECT_EQ(load.exit_code, 2);
  // Issue 27 N9: /dev/zero grew without bound, a FIFO was waited on; both are refused at once.
  CliResult zero = Exam("project:x", {"--exam", "/dev/zero"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("the exam file /dev/zero: is a character device, not a regular file"),
            std::string::npos)
      << zero.err;
  const std::string fifo = dir_.path() + "/exam.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  CliResult waiting = Exam("project:x", {"--exam", fifo});
  EXPECT_EQ(waiting.exit_code, 2);
  EXPECT_NE(waiting.err.find("is a FIFO"), std::string::npos) << waiting.err;
  // Past the 16 MiB limit: refused with the limit named, nothing loaded.
  const std::string huge = dir_.path() + "/huge.json";
  std::ofstream(huge) << std::string((16u << 20) + 1, ' ');
  CliResult big = Exam("project:x", {"--exam", huge, "--load"});
  EXPECT_EQ(big.exit_code, 5) << big.err;
  EXPECT_NE(big.err.find("over the limit of 16 MiB"), std::string::npos) << big.err;
}

}  // namespace
}  // namespace pc::testing
