// `powercontext setup` and `powercontext doctor` for Claude Code, Codex and Cursor, as the real
// binary, on project folders with the user's own settings in them, against a real server.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using Json = nlohmann::json;

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::trunc) << text;
}

class Setup : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>(dir_.path() + "/data");
    ASSERT_TRUE(server_->Start());
    project_ = dir_.path() + "/project";
    std::filesystem::create_directories(project_);
  }
  CliResult Run(std::vector<std::string> args) {
    args.insert(args.end(), {"--project", project_, "--server", server_->url()});
    return RunCli(args);
  }
  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
  std::string project_;
};

TEST_F(Setup, ClaudeCodeMergesIsIdempotentAndRemovesExactlyOurs) {
  const std::string settings = project_ + "/.claude/settings.json";
  const std::string mine = R"json({"permissions": {"allow": ["Bash(ls)"]},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}})json";
  Write(settings, mine);
  CliResult first = Run({"setup", "claude-code", "--scope", "project:orders"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Json s = Json::parse(Slurp(settings));
  EXPECT_EQ(s["permissions"]["allow"][0], "Bash(ls)");
  ASSERT_EQ(s["hooks"]["Stop"].size(), 2u);  // the user's hook, then ours
  EXPECT_EQ(s["hooks"]["Stop"][0]["hooks"][0]["command"], "notify-send done");
  for (const char* event :
       {"UserPromptSubmit", "SessionStart", "Stop", "SessionEnd", "PreCompact"}) {
    const std::string cmd = s["hooks"][event].back()["hooks"][0]["command"];
    EXPECT_NE(cmd.find(" hook claude-code "), std::string::npos) << event;
    EXPECT_NE(cmd.find("--scope project:orders"), std::string::npos) << cmd;
  }
  Json mcp = Json::parse(Slurp(project_ + "/.mcp.json"));
  EXPECT_EQ(mcp["mcpServers"]["powercontext"]["args"], (Json{"mcp", "--server", server_->url()}));
  // Twice: the same files.
  const std::string before = Slurp(settings);
  CliResult second = Run({"setup", "claude-code", "--scope", "project:orders"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("unchanged"), std::string::npos) << second.out;
  EXPECT_EQ(Slurp(settings), before);
  // The doctor: entries, server, token, scope, and the installed hook answering.
  CliResult doctor = Run({"doctor", "claude-code", "--scope", "project:orders", "--json"});
  ASSERT_EQ(doctor.exit_code, 0) << doctor.out << doctor.err;
  Json checks = Json::parse(doctor.out);
  EXPECT_TRUE(checks["ok"]);
  EXPECT_EQ(checks["checks"].size(), 6u) << checks.dump();
  // Remove: exactly ours go; the user's settings are as they were (as JSON); .mcp.json was ours.
  CliResult removed = Run({"setup", "claude-code", "--remove"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(Json::parse(Slurp(settings)), Json::parse(mine));
  EXPECT_FALSE(std::filesystem::exists(project_ + "/.mcp.json"));
  // The doctor now says what is missing, and fails.
  CliResult after = Run({"doctor", "claude-code"});
  EXPECT_EQ(after.exit_code, 1);
  EXPECT_NE(after.out.find("FAIL  mcp entry"), std::string::npos) << after.out;
}

TEST_F(Setup, CodexKeepsTheUsersTomlAndCursorGetsItsMcpEntry) {
  const std::string config = project_ + "/.codex/config.toml";
  const std::string mine = "model = \"gpt-5\"\n\n[profiles.fast]\nmodel = \"gpt-5-mini\"\n";
  Write(config, mine);
  ASSERT_EQ(Run({"setup", "codex"}).exit_code, 0);
  const std::string merged = Slurp(config);
  EXPECT_EQ(merged.rfind(mine, 0), 0u) << merged;  // the user's text first, untouched
  EXPECT_NE(merged.find("[mcp_servers.powercontext]"), std::string::npos);
  Json hooks = Json::parse(Slurp(project_ + "/.codex/hooks.json"));
  EXPECT_EQ(hooks["hooks"].size(), 4u);  // UserPromptSubmit, SessionStart, Stop, PreCompact
  ASSERT_EQ(Run({"setup", "codex"}).exit_code, 0);
  EXPECT_EQ(Slurp(config), merged);
  CliResult doctor = Run({"doctor", "codex"});
  EXPECT_EQ(doctor.exit_code, 0) << doctor.out << doctor.err;
  ASSERT_EQ(Run({"setup", "codex", "--remove"}).exit_code, 0);
  EXPECT_EQ(Slurp(config), mine);  // byte for byte
  EXPECT_FALSE(std::filesystem::exists(project_ + "/.codex/hooks.json"));

  // A table of that name the user wrote is not ours to replace: refused, nothing written.
  Write(config, mine + "\n[mcp_servers.powercontext]\ncommand = \"their-own\"\n");
  CliResult refused = Run({"setup", "codex"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("did not write"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(project_ + "/.codex/hooks.json"));
  // Settings that are not JSON: refused, untouched.
  Write(project_ + "/.cursor/mcp.json", "{ not json");
  CliResult bad = Run({"setup", "cursor"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(Slurp(project_ + "/.cursor/mcp.json"), "{ not json");
  Write(project_ + "/.cursor/mcp.json", R"({"mcpServers": {"other": {"command": "x"}}})");
  ASSERT_EQ(Run({"setup", "cursor"}).exit_code, 0);
  Json cursor = Json::parse(Slurp(project_ + "/.cursor/mcp.json"));
  EXPECT_EQ(cursor["mcpServers"].size(), 2u);
  EXPECT_EQ(Run({"setup", "vscode"}).exit_code, 2);
}

// --remove where nothing is ours: every file stays exactly as it is (the review found empty
// containers erased and `{}` files deleted).
TEST_F(Setup, RemovingWhatIsNotThereChangesNothing) {
  Write(project_ + "/.mcp.json", "{\"mcpServers\": {}}\n");
  Write(project_ + "/.claude/settings.json", "{\"hooks\": {\"Stop\": []}}\n");
  Write(project_ + "/.cursor/mcp.json", "{}");
  Write(project_ + "/.codex/config.toml", "model = \"gpt-5\"\n\n\n");
  for (const char* host : {"claude-code", "cursor", "codex"})
    ASSERT_EQ(Run({"setup", host, "--remove"}).exit_code, 0) << host;
  EXPECT_EQ(Slurp(project_ + "/.mcp.json"), "{\"mcpServers\": {}}\n");
  EXPECT_EQ(Slurp(project_ + "/.claude/settings.json"), "{\"hooks\": {\"Stop\": []}}\n");
  EXPECT_EQ(Slurp(project_ + "/.cursor/mcp.json"), "{}");
  EXPECT_EQ(Slurp(project_ + "/.codex/config.toml"), "model = \"gpt-5\"\n\n\n");
  // Setup then remove: the TOML with its trailing blank lines comes back byte for byte.
  ASSERT_EQ(Run({"setup", "codex"}).exit_code, 0);
  ASSERT_EQ(Run({"setup", "codex", "--remove"}).exit_code, 0);
  EXPECT_EQ(Slurp(project_ + "/.codex/config.toml"), "model = \"gpt-5\"\n\n\n");
}

}  // namespace
}  // namespace pc::testing
