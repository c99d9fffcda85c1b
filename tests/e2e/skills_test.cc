// External Skills through the real binary (docs/skills.md): a server given --external-skill-roots
// scans, lists and resolves packages on disk, the CLI prints them, a changed package stops
// resolving, and a server without roots answers 503 with its code and the CLI's exit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

void WriteSkill(const fs::path& dir, const std::string& body) {
  fs::create_directories(dir);
  std::ofstream(dir / "SKILL.md") << "---\nname: " << dir.filename().string()
                                  << "\ndescription: Tidy a Python change.\n---\n"
                                  << body;
}

TEST(ExternalSkills, TheServerFindsResolvesAndLetsGoOfPackagesOnDisk) {
  TempDir dir;
  const fs::path root = fs::path(dir.path()) / "skills";
  WriteSkill(root / "friendly-python", "Run ruff, then the tests.\n");
  ServerProcess server(dir.path() + "/data", {"--external-skill-roots", "user=" + root.string()});
  ASSERT_TRUE(server.Start());
  JsonHttp http(server.port());
  EXPECT_EQ(http.Get("/v1/capabilities").second["external_skill_registry"], true);

  CliResult scan =
      RunCli({"--server", server.url(), "skill", "external", "scan", "--scope", "project:py"});
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_NE(scan.out.find("registered 1 skill, skipped 0"), std::string::npos) << scan.out;
  EXPECT_NE(scan.out.find("external:codex:user/friendly-python  friendly-python"),
            std::string::npos)
      << scan.out;

  CliResult listed = RunCli(
      {"--server", server.url(), "--json", "skill", "external", "list", "--scope", "project:py"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  json skills = json::parse(listed.out)["skills"];
  ASSERT_EQ(skills.size(), 1u) << listed.out;
  EXPECT_EQ(skills[0]["status"], "available");
  EXPECT_EQ(skills[0]["entrypoint"], (root / "friendly-python" / "SKILL.md").string());
  const std::string fingerprint = skills[0]["registration"]["fingerprint"];

  CliResult exact = RunCli({"--server", server.url(), "skill", "external", "resolve", "--scope",
                            "project:py", "external:codex:user/friendly-python", fingerprint});
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  EXPECT_EQ(exact.out.rfind("available  external:codex:user/friendly-python", 0), 0u) << exact.out;

  // Edited on disk: the registered version is gone, and nothing else is handed out instead.
  WriteSkill(root / "friendly-python", "Run black, then the tests.\n");
  CliResult changed = RunCli({"--server", server.url(), "skill", "external", "resolve", "--scope",
                              "project:py", "external:codex:user/friendly-python", fingerprint});
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_EQ(changed.out.rfind("unavailable", 0), 0u) << changed.out;
  EXPECT_EQ(changed.out.find("entrypoint"), std::string::npos) << changed.out;
  CliResult none =
      RunCli({"--server", server.url(), "skill", "external", "list", "--scope", "project:py"});
  EXPECT_NE(none.out.find("no external skills"), std::string::npos) << none.out;
  CliResult all = RunCli(
      {"--server", server.url(), "skill", "external", "list", "--scope", "project:py", "--all"});
  EXPECT_EQ(all.out.rfind("unavailable", 0), 0u) << all.out;

  // Bad input: a CLI message and a non-zero exit; an unknown id is not found (exit 3).
  CliResult bad = RunCli({"--server", server.url(), "skill", "external", "resolve", "--scope",
                          "project:py", "external:codex:user/friendly-python", "xyz"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("fingerprint"), std::string::npos) << bad.err;
  CliResult unknown = RunCli({"--server", server.url(), "skill", "external", "resolve", "--scope",
                              "project:py", "external:codex:user/nope", fingerprint});
  EXPECT_EQ(unknown.exit_code, 3) << unknown.err;

  // The registry is this process's: after a restart a scope has none until it is scanned again.
  server.Stop();
  ASSERT_TRUE(server.Start());
  JsonHttp again(server.port());
  auto after = again.Post("/v1/external-skills/list",
                          {{"scope_id", "project:py"}, {"include_unavailable", true}});
  ASSERT_EQ(after.first, 200) << after.second.dump();
  EXPECT_TRUE(after.second["skills"].empty()) << after.second.dump();
}

TEST(ExternalSkills, WithoutRootsEveryOperationIsUnavailable) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  JsonHttp http(server.port());
  EXPECT_EQ(http.Get("/v1/capabilities").second["external_skill_registry"], false);
  auto reply = http.Post("/v1/external-skills/scan", {{"scope_id", "project:py"}});
  EXPECT_EQ(reply.first, 503);
  EXPECT_EQ(reply.second["error"]["code"], "external_skill_registry_unavailable");
  CliResult cli =
      RunCli({"--server", server.url(), "skill", "external", "list", "--scope", "project:py"});
  EXPECT_EQ(cli.exit_code, 6) << cli.err;
  EXPECT_NE(cli.err.find("external_skill_roots"), std::string::npos) << cli.err;
  // A root that is not absolute stops the server at start, saying why.
  CliResult refused = RunCli({"serve", "--data", dir.path() + "/other", "--listen", "127.0.0.1:0",
                              "--external-skill-roots", "user=skills"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("must be absolute"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace pc::testing
