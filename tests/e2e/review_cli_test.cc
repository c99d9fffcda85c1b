// The review and write-gate commands as the real binary against a real server: experience
// propose and generate (the model a fake OpenAI-compatible endpoint on loopback), candidate list /
// show / revise / approve / reject, experience get / search; scope settings; remember with evidence
// and a near-duplicate warning; every bad input a message and a non-zero exit that changed nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

class ReviewCli : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server.Start()); }
  CliResult Cli(std::vector<std::string> args) {
    args.push_back("--server");
    args.push_back(server.url());
    return RunCli(args);
  }
  TempDir dir;
  ServerProcess server{dir.path() + "/data"};
  const std::string scope = "project:review-cli";
};

TEST_F(ReviewCli, ProposeReviseApproveRejectSearch) {
  JsonHttp http(server.port());
  auto captured =
      http.Post("/v1/sources/content",
                json{{"scope_id", scope},
                     {"source_id", "run-42"},
                     {"content", "Run 42: the contract tests caught a renamed field."}});
  ASSERT_EQ(captured.first, 202) << captured.second.dump();
  const std::vector<std::string> lesson = {
      "--situation", "The OpenAPI document changed.",
      "--action",    "Ran the contract tests.",
      "--outcome",   "A renamed field was caught.",
      "--lesson",    "Run contract tests after any YAML change."};
  std::vector<std::string> propose = {"experience",   "propose",        "--scope", scope,
                                      "--source-ref", "content/run-42", "--json"};
  propose.insert(propose.end(), lesson.begin(), lesson.end());
  CliResult proposed = Cli(propose);
  ASSERT_EQ(proposed.exit_code, 0) << proposed.err;
  const std::string id = json::parse(proposed.out)["candidate_id"];

  CliResult listed = Cli({"candidate", "list", "--scope", scope});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find(id + "@1"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("source:content/run-42"), std::string::npos) << listed.out;

  std::vector<std::string> revise = {
      "candidate",          "revise", "experience",   "--scope",        scope,
      "--expected-version", "1",      "--source-ref", "content/run-42", id};
  revise.insert(revise.end(), lesson.begin(), lesson.end() - 1);
  revise.push_back("Run contract tests after changing openapi/orders.yaml.");
  CliResult revised = Cli(revise);
  ASSERT_EQ(revised.exit_code, 0) << revised.err;
  EXPECT_NE(revised.out.find(id + "@2"), std::string::npos) << revised.out;

  CliResult stale = Cli({"candidate", "approve", "--scope", scope, "--expected-version", "1", id});
  EXPECT_EQ(stale.exit_code, 4) << stale.err;
  EXPECT_NE(stale.err.find("candidate_conflict"), std::string::npos) << stale.err;
  CliResult approved =
      Cli({"candidate", "approve", "--scope", scope, "--expected-version", "2", id, "--json"});
  ASSERT_EQ(approved.exit_code, 0) << approved.err;
  const json result = json::parse(approved.out)["result_artifact"];
  const std::string ref = "experience/" + result["artifact_id"].get<std::string>() + "@1";

  CliResult got = Cli({"experience", "get", "--scope", scope, ref});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_NE(got.out.find("openapi/orders.yaml"), std::string::npos) << got.out;
  CliResult found = Cli({"experience", "search", "--scope", scope, "contract tests openapi"});
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_NE(found.out.find(ref), std::string::npos) << found.out;

  proposed = Cli(propose);
  ASSERT_EQ(proposed.exit_code, 0) << proposed.err;
  const std::string other = json::parse(proposed.out)["candidate_id"];
  CliResult no_reason =
      Cli({"candidate", "reject", "--scope", scope, "--expected-version", "1", other});
  EXPECT_EQ(no_reason.exit_code, 2) << "--reason is required";
  CliResult rejected = Cli({"candidate", "reject", "--scope", scope, "--expected-version", "1",
                            "--reason", "too broad", other});
  ASSERT_EQ(rejected.exit_code, 0) << rejected.err;
  EXPECT_NE(rejected.out.find("rejected: too broad"), std::string::npos) << rejected.out;

  // Bad input: nothing written, a message, a non-zero exit.
  std::vector<std::string> no_evidence = {"experience", "propose", "--scope", scope};
  no_evidence.insert(no_evidence.end(), lesson.begin(), lesson.end());
  CliResult none = Cli(no_evidence);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("evidence"), std::string::npos) << none.err;
  CliResult bad_ref = Cli({"experience", "get", "--scope", scope, "experience-without-revision"});
  EXPECT_EQ(bad_ref.exit_code, 2);
  EXPECT_NE(bad_ref.err.find("FAMILY/ID@REVISION"), std::string::npos) << bad_ref.err;
  CliResult unknown = Cli({"candidate", "show", "--scope", scope, "cand_missing"});
  EXPECT_EQ(unknown.exit_code, 3) << unknown.err;
  CliResult pending = Cli({"candidate", "list", "--scope", scope, "--json"});
  EXPECT_TRUE(json::parse(pending.out)["candidates"].empty()) << pending.out;
}

TEST_F(ReviewCli, SettingsEvidenceAndNearDuplicates) {
  CliResult shown = Cli({"scope", "settings", "--scope", scope});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("reconcile = warn  (server default)"), std::string::npos) << shown.out;

  CliResult first =
      Cli({"remember", "--scope", scope, "--kind", "fact", "Deploys need two approvals.",
           "--evidence", "https://wiki.example/deploys"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out.find("hypothesis"), std::string::npos) << first.out;
  CliResult near =
      Cli({"remember", "--scope", scope, "--kind", "fact", "Deploys need two approvals!"});
  ASSERT_EQ(near.exit_code, 0) << near.err;
  EXPECT_NE(near.out.find("warning: nearly the same as"), std::string::npos) << near.out;
  EXPECT_NE(near.out.find("hypothesis: no evidence recorded"), std::string::npos) << near.out;

  CliResult set = Cli({"scope", "settings", "--scope", scope, "--set", "reconcile=reject", "--set",
                       "require_evidence=true"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.out.find("reconcile = reject  (this scope)"), std::string::npos) << set.out;
  CliResult refused =
      Cli({"remember", "--scope", scope, "--kind", "fact", "Deploys need two approvals?",
           "--evidence", "https://wiki.example/deploys"});
  EXPECT_EQ(refused.exit_code, 4) << refused.out;
  EXPECT_NE(refused.err.find("near_duplicate"), std::string::npos) << refused.err;
  CliResult unsupported =
      Cli({"remember", "--scope", scope, "--kind", "fact", "Payments settle daily."});
  EXPECT_EQ(unsupported.exit_code, 2) << unsupported.out;
  EXPECT_NE(unsupported.err.find("evidence_required"), std::string::npos) << unsupported.err;

  CliResult bad = Cli({"scope", "settings", "--scope", scope, "--set", "reconcile=sometimes"});
  EXPECT_EQ(bad.exit_code, 2);
  CliResult malformed = Cli({"scope", "settings", "--scope", scope, "--set", "reconcile"});
  EXPECT_EQ(malformed.exit_code, 2);
  CliResult cleared = Cli({"scope", "settings", "--scope", scope, "--clear", "reconcile", "--clear",
                           "require_evidence"});
  ASSERT_EQ(cleared.exit_code, 0) << cleared.err;
  EXPECT_NE(cleared.out.find("reconcile = warn  (server default)"), std::string::npos)
      << cleared.out;
}

// `experience generate`: the server's model drafts a pending candidate from exactly the evidence
// given; a model that finds no lesson is a no_op; bad input and a server without a model are
// messages with a non-zero exit that proposed nothing.
TEST(ReviewCliGenerate, TheModelDraftsAPendingCandidateOrNothing) {
  FakeOpenAi fake;
  TempDir dir;
  ServerProcess server(dir.path() + "/data", ChatFlags(fake));
  ASSERT_TRUE(server.Start());
  const std::string scope = "project:generate-cli";
  auto cli = [&](std::vector<std::string> args) {
    args.push_back("--server");
    args.push_back(server.url());
    return RunCli(args);
  };
  JsonHttp http(server.port());
  auto captured =
      http.Post("/v1/sources/content",
                json{{"scope_id", scope},
                     {"source_id", "run-42"},
                     {"content", "Run 42: the contract tests caught a renamed field."}});
  ASSERT_EQ(captured.first, 202) << captured.second.dump();

  fake.ScriptChat(
      {{R"({"experience": {"situation": "The OpenAPI document changed.", "action": "Ran the contract tests.",
                       "outcome": "A renamed field was caught.", "lesson": "Run contract tests after any YAML change."}})"}});
  CliResult generated =
      cli({"experience", "generate", "--scope", scope, "--source-ref", "content/run-42"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_NE(generated.out.find("pending"), std::string::npos) << generated.out;
  EXPECT_NE(generated.out.find("Run contract tests after any YAML change."), std::string::npos)
      << generated.out;
  EXPECT_NE(generated.out.find("source:content/run-42"), std::string::npos) << generated.out;
  EXPECT_NE(fake.chat_bodies().back().find("Run 42: the contract tests caught a renamed field."),
            std::string::npos);

  fake.ScriptChat({{R"({"experience": null})"}});
  CliResult noop =
      cli({"experience", "generate", "--scope", scope, "--source-ref", "content/run-42", "--json"});
  ASSERT_EQ(noop.exit_code, 0) << noop.err;
  EXPECT_EQ(json::parse(noop.out), (json{{"status", "no_op"}, {"candidate", nullptr}})) << noop.out;

  const int asked = fake.chat_requests();
  CliResult unknown =
      cli({"experience", "generate", "--scope", scope, "--source-ref", "content/run-9"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;
  EXPECT_NE(unknown.err.find("run-9"), std::string::npos) << unknown.err;
  CliResult malformed = cli({"experience", "generate", "--scope", scope, "--source-ref", "run-42"});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find("TYPE/ID"), std::string::npos) << malformed.err;
  EXPECT_EQ(fake.chat_requests(), asked) << "a refused request never reaches the model";
  fake.ScriptChat({{"no JSON here"}});
  CliResult unusable =
      cli({"experience", "generate", "--scope", scope, "--source-ref", "content/run-42"});
  EXPECT_NE(unusable.exit_code, 0);
  EXPECT_NE(unusable.err.find("provider_error"), std::string::npos) << unusable.err;
  CliResult listed = cli({"candidate", "list", "--scope", scope, "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out)["candidates"].size(), 1u)
      << "only the first generation proposed: " << listed.out;

  ServerProcess bare(dir.path() + "/bare");
  ASSERT_TRUE(bare.Start());
  ASSERT_EQ(JsonHttp(bare.port())
                .Post("/v1/sources/content",
                      json{{"scope_id", scope}, {"source_id", "run-1"}, {"content", "x"}})
                .first,
            202);
  CliResult unavailable = RunCli({"experience", "generate", "--scope", scope, "--source-ref",
                                  "content/run-1", "--server", bare.url()});
  EXPECT_NE(unavailable.exit_code, 0);
  EXPECT_NE(unavailable.err.find("capability_unavailable"), std::string::npos) << unavailable.err;
}

}  // namespace
}  // namespace pc::testing
