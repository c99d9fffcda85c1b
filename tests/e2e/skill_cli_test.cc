// Managed Skills from the command line, against the real binary (docs/skills.md): propose,
// approve, show, and `skill export`, whose package an agent's host — here the server's own
// external Skill registry — finds as a Skill with the same name and description; an export never
// writes over a file it did not write. Without a model, generate and import are exit 6
// (generation_unavailable) and change nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_on.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSkillScope = "project:skill-cli";

// An approved Skill of `server`'s scope, through the CLI: its skl_… id (revision 1).
std::string ApprovedSkill(const ServerProcess& server) {
  json remembered = JsonOn(server, {"remember", "-s", kSkillScope, "-k", "decision",
                                    "CSV imports are validated before any row is stored."});
  const json& m = remembered["memory"];
  const std::string ref = "memory/" + m["artifact_id"].get<std::string>() + "@" +
                          std::to_string(m["revision"].get<int64_t>());
  json proposed =
      JsonOn(server,
             {"skill", "propose", "-s", kSkillScope, "--name", "csv-import-check", "--description",
              "Use when a CSV importer changes: validate before storing rows.",
              "--instructions-file", "-", "--validation", "a bad row is reported with its line",
              "--validation", "the importer's tests pass", "--artifact-ref", ref},
             "1. Find where rows are parsed.\n2. Validate each row before it is stored.\n");
  EXPECT_EQ(proposed["family"], "skill") << proposed.dump();
  EXPECT_EQ(proposed["proposal"]["instructions"],
            "1. Find where rows are parsed.\n2. Validate each row before it is stored.\n");
  json approved =
      JsonOn(server, {"candidate", "approve", "-s", kSkillScope,
                      proposed["candidate_id"].get<std::string>(), "--expected-version", "1"});
  EXPECT_EQ(approved["result_artifact"]["family"], "skill") << approved.dump();
  return approved["result_artifact"]["artifact_id"].get<std::string>();
}

TEST(SkillCli, AnExportIsAPackageAnAgentsHostFindsAndNeverOverwritesAnEdit) {
  TempDir dir;
  const std::string skills = dir.path() + "/skills";
  ServerProcess server(dir.path() + "/data", {"--external-skill-roots", "user=" + skills});
  ASSERT_TRUE(server.Start()) << Slurp(server.log_path());
  const std::string id = ApprovedSkill(server);
  ASSERT_FALSE(HasFailure());

  json shown = JsonOn(server, {"skill", "show", "-s", kSkillScope, "--revision", "1", id});
  EXPECT_EQ(shown["content"]["name"], "csv-import-check");
  CliResult text = On(server, {"skill", "show", "-s", kSkillScope, "--revision", "1", id});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("  validation:\n    - a bad row is reported with its line"),
            std::string::npos)
      << text.out;

  const std::string dest = skills + "/csv-import-check";
  json exported = JsonOn(server, {"skill", "export", "--target", "codex", "-s", kSkillScope,
                                  "--revision", "1", "--destination", dest, id});
  EXPECT_EQ(exported["replaced"], false);
  ASSERT_TRUE(fs::exists(dest + "/SKILL.md"));
  json manifest = json::parse(Slurp(dest + "/powercontext.json"));
  EXPECT_EQ(manifest["artifact"], shown["artifact"]);
  EXPECT_EQ(manifest["artifact_refs"], shown["artifact_refs"]);
  EXPECT_EQ(manifest["target"], "codex");

  // The exported package is a Skill a host discovers: the registry reads its front matter.
  json scan = JsonOn(server, {"skill", "external", "scan", "-s", kSkillScope});
  ASSERT_EQ(scan["registrations"].size(), 1u) << scan.dump();
  EXPECT_EQ(scan["registrations"][0]["name"], "csv-import-check");
  EXPECT_EQ(scan["registrations"][0]["description"],
            "Use when a CSV importer changes: validate before storing rows.");

  // Its own unedited export is replaced; an edited one, or a directory of other files, is not.
  CliResult again = On(server, {"skill", "export", "--target", "codex", "-s", kSkillScope,
                                "--revision", "1", "--destination", dest, id});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("replaced the earlier export"), std::string::npos) << again.out;
  std::ofstream(dest + "/SKILL.md", std::ios::app) << "\nA note a person added.\n";
  const std::string edited = Slurp(dest + "/SKILL.md");
  CliResult refused = On(server, {"skill", "export", "--target", "codex", "-s", kSkillScope,
                                  "--revision", "1", "--destination", dest, id});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("edited since it was exported"), std::string::npos) << refused.err;
  EXPECT_EQ(Slurp(dest + "/SKILL.md"), edited) << "the person's edit is kept";
  const std::string other = dir.path() + "/other";
  fs::create_directories(other);
  std::ofstream(other + "/notes.md") << "mine\n";
  CliResult foreign = On(server, {"skill", "export", "--target", "claude", "-s", kSkillScope,
                                  "--revision", "1", "--destination", other, id});
  EXPECT_EQ(foreign.exit_code, 2) << foreign.err;
  EXPECT_FALSE(fs::exists(other + "/SKILL.md"));
  // A revision the scope does not have: 404's exit code, nothing written.
  CliResult missing = On(server, {"skill", "export", "--target", "codex", "-s", kSkillScope,
                                  "--revision", "2", "--destination", dir.path() + "/r2", id});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/r2"));

  // No model on this server: generate and import are generation_unavailable, exit 6.
  CliResult generate = On(server, {"skill", "generate", "-s", kSkillScope, "--origin", "source",
                                   "--source-ref", "content/doc-1"});
  EXPECT_EQ(generate.exit_code, 6) << generate.err;
  EXPECT_NE(generate.err.find("generation_unavailable"), std::string::npos) << generate.err;
  const json& reg = scan["registrations"][0];
  CliResult import = On(
      server, {"skill", "external", "import", "-s", kSkillScope, "--mode", "fork",
               reg["external_skill_id"].get<std::string>(), reg["fingerprint"].get<std::string>()});
  EXPECT_EQ(import.exit_code, 6) << import.err;
  json pending = JsonOn(server, {"candidate", "list", "-s", kSkillScope, "--family", "skill"});
  EXPECT_TRUE(pending["candidates"].empty()) << pending.dump();
}

}  // namespace
}  // namespace pc::testing
