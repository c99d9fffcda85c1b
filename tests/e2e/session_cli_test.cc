// The commands that read an agent host's files without a server, run as the real binary:
// `powercontext prune` (session/prune.h) and `powercontext session-stats`.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "server_process.h"
#include "test_util.h"

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
  Json list =
      Json::array({{{"role", "user"}, {"content", "hi"}, {"timestamp", "2026-12-01T10:00:00Z"}},
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
  EXPECT_NE(table.out.find("Session context breakdown (2 sessions, chars):"), std::string::npos)
      << table.out;
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

// Issue 27 N3, N9: deep JSON crashed prune and session-stats (SIGSEGV); /dev/zero and a FIFO
// were read (or waited on) forever. Each is now a clear message and a non-zero exit, at once.
TEST(SessionCli, HostileFilesAreRefusedNotCrashedOn) {
  TempDir dir;
  const std::string deep(1000000, '['), close(1000000, ']');
  const std::string deep_list = dir.path() + "/deep.json";
  std::ofstream(deep_list) << "{\"messages\":" << deep << close << "}";
  CliResult prune = RunCli({"prune", deep_list});
  EXPECT_EQ(prune.exit_code, 2) << prune.err;
  EXPECT_NE(prune.err.find("nested more than 64 levels"), std::string::npos) << prune.err;
  CliResult piped = RunCli({"prune", "-"}, "[" + deep + close + "]");
  EXPECT_EQ(piped.exit_code, 2) << piped.err;

  // A transcript with one deeply nested line: that line is skipped, the rest counted.
  const std::string transcript = dir.path() + "/deep.jsonl";
  const std::string ok =
      R"({"type":"user","sessionId":"s","message":{"role":"user","content":"hello"}})";
  std::ofstream(transcript)
      << ok << "\n"
      << R"({"type":"user","sessionId":"s","message":{"role":"user","content":)" << deep << close
      << "}}\n";
  CliResult stats = RunCli({"session-stats", transcript, "--json"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_EQ(Json::parse(stats.out)["total_chars"], 5);

  const auto t0 = std::chrono::steady_clock::now();
  for (const char* command : {"session-stats", "prune"}) {
    CliResult zero = RunCli({command, "/dev/zero"});
    EXPECT_EQ(zero.exit_code, 2) << command << ": " << zero.err;
    EXPECT_NE(zero.err.find("/dev/zero: is a character device, not a regular file"),
              std::string::npos)
        << zero.err;
  }
  const std::string fifo = dir.path() + "/fifo.jsonl";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  CliResult waiting = RunCli({"session-stats", fifo});
  EXPECT_EQ(waiting.exit_code, 2) << waiting.err;
  EXPECT_NE(waiting.err.find("is a FIFO"), std::string::npos) << waiting.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  // In a folder, a FIFO is not a transcript and a link is not followed: only deep.jsonl is read.
  std::filesystem::create_symlink("/dev/zero", dir.path() + "/zero.jsonl");
  CliResult folder = RunCli({"session-stats", dir.path(), "--json"});
  ASSERT_EQ(folder.exit_code, 0) << folder.err;
  EXPECT_EQ(Json::parse(folder.out)["sessions"], 1);
}

}  // namespace
}  // namespace pc::testing
