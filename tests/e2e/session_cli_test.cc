// The commands that read an agent host's files without a server, run as the real binary:
// `powercontext prune` (session/prune.h) and `powercontext session-stats`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server_process.h"

namespace pc::testing {
namespace {

using Json = nlohmann::json;

const std::string kGolden = std::string(PC_SOURCE_DIR) + "/tests/golden/prune/";

TEST(SessionCli, PruneReadsAFileOrStdinAndPrintsThePrunedList) {
  // A recorded Claude session; the seed's policy with "now" from the request.
  CliResult r = RunCli({"prune", kGolden + "claude_session.json", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json out = Json::parse(r.out);
  EXPECT_EQ(out["format"], "anthropic");
  EXPECT_EQ(out["pruned"].size(), 3u);
  EXPECT_EQ(out["chars_before"], 5610);
  EXPECT_EQ(out["chars_after"], 2780);
  EXPECT_EQ(out["messages"].size(), 13u);
  // Options override the request's policy; without --json the list goes to stdout, the summary to
  // stderr, so the output can be piped to the model as is.
  CliResult hour = RunCli({"prune", kGolden + "claude_session.json", "--ttl", "3600"});
  ASSERT_EQ(hour.exit_code, 0) << hour.err;
  EXPECT_TRUE(Json::parse(hour.out).is_array());
  EXPECT_NE(hour.err.find("pruned 0 of 6 tool results"), std::string::npos) << hour.err;
  // A bare message list on standard input.
  Json list = Json::array({{{"role", "user"}, {"content", "hi"}, {"timestamp", "2026-12-01T10:00:00Z"}},
                           {{"role", "tool"}, {"tool_call_id", "c"}, {"content", std::string(400, 'x')}},
                           {{"role", "user"}, {"content", "more"}}});
  CliResult piped = RunCli({"prune", "-", "--now", "2026-12-01T11:00:00Z", "--json"}, list.dump());
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(Json::parse(piped.out)["pruned"].size(), 1u);
}

TEST(SessionCli, PruneRefusesBadInputWithAClearError) {
  CliResult missing = RunCli({"prune", "/no/such/file.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.err;
  CliResult not_json = RunCli({"prune", "-"}, "this is not json");
  EXPECT_EQ(not_json.exit_code, 2);
  CliResult bad = RunCli({"prune", kGolden + "bad_timestamp.json"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("messages[0].timestamp"), std::string::npos) << bad.err;
  CliResult ratio = RunCli({"prune", kGolden + "claude_session.json", "--hard-clear-ratio", "3"});
  EXPECT_EQ(ratio.exit_code, 2);
  EXPECT_NE(ratio.err.find("hard_clear_ratio"), std::string::npos) << ratio.err;
}

TEST(SessionCli, SessionStatsOverTranscriptsAndFolders) {
  const std::string dir = std::string(PC_SOURCE_DIR) + "/tests/data/transcripts";
  CliResult table = RunCli({"session-stats", dir});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Session context breakdown (2 sessions, chars):"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Most extreme session:"), std::string::npos) << table.out;
  CliResult one = RunCli({"session-stats", dir + "/codex_rollout_en.jsonl", "--json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  Json j = Json::parse(one.out);
  EXPECT_EQ(j["sessions"], 1);
  EXPECT_GT(j["categories"][0]["total"].get<int64_t>(), 0);  // tool results
  // A Claude Code transcript on standard input.
  CliResult piped = RunCli({"session-stats", "-"}, Slurp(dir + "/claude_code_zh.jsonl"));
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  CliResult not_a_transcript = RunCli({"session-stats", std::string(PC_SOURCE_DIR) + "/README.md"});
  EXPECT_EQ(not_a_transcript.exit_code, 2);
  EXPECT_NE(not_a_transcript.err.find("README.md"), std::string::npos) << not_a_transcript.err;
  CliResult empty_dir = RunCli({"session-stats", std::string(PC_SOURCE_DIR) + "/docs"});
  EXPECT_EQ(empty_dir.exit_code, 2);
  CliResult none = RunCli({"session-stats"});
  EXPECT_EQ(none.exit_code, 2);
}

}  // namespace
}  // namespace pc::testing
