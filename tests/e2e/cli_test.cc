// The CLI against a real server: readable output, --json, exit codes, and the same story.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server.Start()); }
  CliResult Cli(std::vector<std::string> args, const std::string& in = "") {
    args.push_back("--server");
    args.push_back(server.url());
    return RunCli(args, in);
  }
  TempDir dir;
  ServerProcess server{dir.path() + "/data"};
};

TEST_F(CliTest, WriteReviseRetireStory) {
  CliResult made = Cli({"scope", "create", "project:cli"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_NE(made.out.find("project:cli"), std::string::npos);

  CliResult r1 = Cli(
      {"remember", "--scope", "project:cli", "--kind", "decision", "Ship on Tuesdays.", "--json"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  json first = json::parse(r1.out);
  std::string cite1 = CitationString(first["entry"]["citation"]);

  CliResult r2 =
      Cli({"remember", "-s", "project:cli", "-k", "fact", "-"}, "从标准输入读取的事实。\n");
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_NE(r2.out.find("citation: memory/"), std::string::npos);

  CliResult dup = Cli({"remember", "-s", "project:cli", "-k", "decision", "  Ship on  Tuesdays. "});
  EXPECT_EQ(dup.exit_code, 0);
  EXPECT_NE(dup.out.find("no change"), std::string::npos);

  CliResult stale = Cli({"revise", "-s", "project:cli", cite1, "Ship on Wednesdays."});
  EXPECT_EQ(stale.exit_code, 4) << stale.out;
  EXPECT_NE(stale.err.find("current_revision: 2"), std::string::npos) << stale.err;

  CliResult listed = Cli({"entries", "-s", "project:cli", "--json"});
  ASSERT_EQ(listed.exit_code, 0);
  std::string current = json::parse(listed.out)["entries"][0]["citation_ref"];
  CliResult revised = Cli(
      {"revise", "-s", "project:cli", current, "Ship on Wednesdays.", "--reason", "team moved"});
  ASSERT_EQ(revised.exit_code, 0) << revised.err;
  EXPECT_NE(revised.out.find("revise"), std::string::npos);

  CliResult readable = Cli({"entries", "-s", "project:cli"});
  EXPECT_NE(readable.out.find("Ship on Wednesdays."), std::string::npos);
  EXPECT_NE(readable.out.find("从标准输入读取的事实。"), std::string::npos);

  CliResult old = Cli({"read", "-s", "project:cli", cite1});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_EQ(old.out.rfind("Ship on Tuesdays.\n", 0), 0u) << old.out;
  EXPECT_NE(old.out.find("no longer current"), std::string::npos);

  std::string head_cite = json::parse(
      Cli({"entries", "-s", "project:cli", "--json"}).out)["entries"][0]["citation_ref"];
  CliResult retired = Cli({"retire", "-s", "project:cli", head_cite, "--reason", "obsolete"});
  ASSERT_EQ(retired.exit_code, 0) << retired.err;

  CliResult history = Cli({"history", "-s", "project:cli"});
  ASSERT_EQ(history.exit_code, 0);
  EXPECT_NE(history.out.find("r4"), std::string::npos);
  EXPECT_NE(history.out.find("retire"), std::string::npos);
  EXPECT_NE(history.out.find("\"obsolete\""), std::string::npos);
  CliResult one = Cli({"history", "-s", "project:cli", "--revision", "3", "--json"});
  ASSERT_EQ(one.exit_code, 0);
  EXPECT_EQ(json::parse(one.out)["changes"][0]["op"], "revise");
  std::string entry_id = json::parse(r1.out)["entry"]["citation"]["entry_id"];
  CliResult versions = Cli({"history", "-s", "project:cli", "--entry", entry_id, "--json"});
  EXPECT_EQ(json::parse(versions.out)["versions"].size(), 2u);

  CliResult found = Cli({"search", "-s", "project:cli", "标准输入"});
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_NE(found.out.find("从标准输入读取的事实。"), std::string::npos) << found.out;
  // In a memory this small every word is common and bm25 is near 0; the top hit still reads 100%.
  EXPECT_NE(found.out.find("1. [fact] relevance 100% (fts)"), std::string::npos) << found.out;
  EXPECT_EQ(found.out.find("0.000"), std::string::npos) << found.out;
  CliResult found_json =
      Cli({"search", "-s", "project:cli", "Wednesdays", "--include-inactive", "--json"});
  ASSERT_EQ(found_json.exit_code, 0) << found_json.err;
  json result = json::parse(found_json.out);
  EXPECT_EQ(result["mode"], "fts");
  ASSERT_EQ(result["hits"].size(), 1u);
  EXPECT_EQ(result["hits"][0]["state"], "inactive");
  CliResult no_vectors = Cli({"search", "-s", "project:cli", "x", "--mode", "vector"});
  EXPECT_EQ(no_vectors.exit_code, 6);

  CliResult scopes = Cli({"scope", "list"});
  EXPECT_NE(scopes.out.find("project:cli"), std::string::npos);
}

// By default full text lets its best hit lift the entry written right after it; --no-feedback
// is plain BM25.
TEST_F(CliTest, FeedbackLiftsTheEntryWrittenNextToTheHit) {
  for (const char* text : {"Ship releases on Wednesdays.", "Releases need a freeze the day before.",
                           "The billing team owns invoices."})
    ASSERT_EQ(Cli({"remember", "-s", "project:fb", "-k", "fact", text}).exit_code, 0);
  CliResult plain = Cli({"search", "-s", "project:fb", "Wednesdays", "--no-feedback", "--json"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(json::parse(plain.out)["hits"].size(), 1u) << plain.out;
  CliResult lifted = Cli({"search", "-s", "project:fb", "Wednesdays", "--json"});
  ASSERT_EQ(lifted.exit_code, 0) << lifted.err;
  json hits = json::parse(lifted.out)["hits"];
  ASSERT_EQ(hits.size(), 2u) << lifted.out;
  EXPECT_EQ(hits[0]["text"], "Ship releases on Wednesdays.");
  EXPECT_EQ(hits[1]["text"], "Releases need a freeze the day before.");
}

TEST_F(CliTest, ErrorsHaveMessagesAndExitCodes) {
  CliResult bad_kind = Cli({"remember", "-s", "k", "-k", std::string(129, 'k'), "text"});
  EXPECT_EQ(bad_kind.exit_code, 2);
  EXPECT_NE(bad_kind.err.find("kind must be 1 to 128"), std::string::npos) << bad_kind.err;
  // A scope nobody wrote to lists nothing, and is not created by the read.
  CliResult missing = Cli({"entries", "-s", "no-such-scope"});
  EXPECT_EQ(missing.exit_code, 0) << missing.err;
  EXPECT_EQ(Cli({"scope", "list"}).out.find("no-such-scope"), std::string::npos);
  CliResult no_text = Cli({"remember", "-s", "k", "-k", "fact"});
  EXPECT_EQ(no_text.exit_code, 2);
  CliResult bad_cite = Cli({"read", "-s", "k", "memory/nope"});
  EXPECT_NE(bad_cite.exit_code, 0);
  CliResult usage = RunCli({"remember"});
  EXPECT_EQ(usage.exit_code, 2);
  CliResult unreachable = RunCli({"entries", "-s", "k", "--server", "http://127.0.0.1:1"});
  EXPECT_EQ(unreachable.exit_code, 7);
  EXPECT_NE(unreachable.err.find("cannot reach"), std::string::npos);
  CliResult bad_config = RunCli({"config", "show", "--listen", "nonsense"});
  EXPECT_EQ(bad_config.exit_code, 2);
  EXPECT_NE(bad_config.err.find("listen"), std::string::npos);
}

// What the CLI reads to send is bounded and must be a regular file (or standard input): a device
// that never ends is refused at once, naming it, and nothing reaches the server.
TEST_F(CliTest, AnInputThatNeverEndsIsRefusedUnread) {
  CliResult entry = Cli({"remember", "-s", "cli:never-ends", "-k", "fact", "--file", "/dev/zero"});
  EXPECT_EQ(entry.exit_code, 2) << entry.err;
  EXPECT_NE(entry.err.find("/dev/zero"), std::string::npos) << entry.err;
  EXPECT_NE(entry.err.find("not a regular file"), std::string::npos) << entry.err;
  CliResult record =
      Cli({"work", "contract", "-s", "cli:never-ends", "--source-id", "c-1", "/dev/zero"});
  EXPECT_EQ(record.exit_code, 2) << record.err;
  EXPECT_NE(record.err.find("not a regular file"), std::string::npos) << record.err;
  EXPECT_EQ(Cli({"scope", "list"}).out.find("cli:never-ends"), std::string::npos)
      << "nothing was written";
}

// The handoff steps pass JSON from one to the next (no model here: prepare is a capability
// error, exit 6; the draft is written by hand, as an agent that inspected and edited one would).
TEST_F(CliTest, HandoffFinalizeCommitContinue) {
  CliResult r1 =
      Cli({"remember", "-s", "project:cli", "-k", "decision", "Ship on Tuesdays.", "--json"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  json cite = json::parse(r1.out)["entry"]["citation"];
  CliResult no_model =
      Cli({"handoff", "prepare", "-s", "project:cli", "Ship it", "--cite", cite.dump()});
  EXPECT_EQ(no_model.exit_code, 6) << no_model.err;
  EXPECT_NE(no_model.err.find("capability_unavailable"), std::string::npos) << no_model.err;
  json evidence = json::array({{{"kind", "memory"}, {"memory_citation", cite}}});
  json draft{
      {"objective", "Ship the importer."},
      {"state", json::array({{{"text", "Releases go out on Tuesdays."}, {"citations", evidence}}})},
      {"disposition", "continuable"},
      {"next_action", {{"text", "Tag the release."}, {"citations", evidence}}},
      {"omissions", json::array()}};
  CliResult prepared =
      Cli({"handoff", "finalize", "-s", "project:cli", "-", "--json"}, draft.dump());
  ASSERT_EQ(prepared.exit_code, 0) << prepared.err;
  EXPECT_EQ(json::parse(prepared.out)["schema"], "powercontext.prepared-handoff.v1");
  CliResult committed = Cli({"handoff", "commit", "-s", "project:cli", "-"}, prepared.out);
  ASSERT_EQ(committed.exit_code, 0) << committed.err;
  EXPECT_NE(committed.out.find("committed handoff/"), std::string::npos) << committed.out;
  // The same prepared handoff, edited, against a base that moved: a conflict, exit 4.
  json edited = json::parse(prepared.out);
  edited["content"]["disposition"] = "blocked";
  CliResult stale = Cli({"handoff", "commit", "-s", "project:cli", "-"}, edited.dump());
  EXPECT_EQ(stale.exit_code, 4) << stale.out << stale.err;
  // Retire the cited entry: continue says that statement's evidence is gone.
  CliResult retired = Cli({"retire", "-s", "project:cli", cite.dump()});
  ASSERT_EQ(retired.exit_code, 0) << retired.err;
  CliResult resumed = Cli({"handoff", "continue", "-s", "project:cli"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("Tag the release."), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("unavailable evidence"), std::string::npos) << resumed.out;
  CliResult shown = Cli({"handoff", "show", "-s", "project:cli"});
  EXPECT_NE(shown.out.find("Releases go out on Tuesdays."), std::string::npos) << shown.out;
  CliResult bad = Cli({"handoff", "commit", "-s", "project:cli", "/no/such/file"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(CliTest, ConfigShowPrintsEffectiveSettings) {
  CliResult shown = RunCli({"config", "show", "--data", "/tmp/x"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("data = \"/tmp/x\""), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("POWERCONTEXT_LISTEN"), std::string::npos);
}

}  // namespace
}  // namespace pc::testing
