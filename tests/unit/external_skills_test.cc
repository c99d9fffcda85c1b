// The external Skill registry (service/skills, docs/skills.md): SKILL.md's front matter, the
// whole-package fingerprint, and scan / list / resolve against real directories, on a real store
// (a scope named by its server id is looked up there).
#include "service/skills/external_skills.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "service/core/scope_ref.h"
#include "service/skills/skill_package.h"
#include "test_util.h"

namespace pc::testing {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string Skill(const std::string& name, const std::string& description,
                  const std::string& body = "Run the linter first.\n") {
  return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
}

ScopeRef Scope(const std::string& name) { return *ScopeRef::Parse(name); }

TEST(SkillFrontMatter, ReadsNameAndDescriptionInTheirYamlForms) {
  auto plain = ParseSkillFrontMatter(Skill("friendly-python", "Tidy Python files."));
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->name, "friendly-python");
  EXPECT_EQ(plain->description, "Tidy Python files.");
  auto folded = ParseSkillFrontMatter(
      "---\r\nname: \"审查: 代码\"\r\nversion: 3\r\ndescription: >\r\n  Review a change\r\n  "
      "before it lands.\r\n---\r\n# body\r\n");
  ASSERT_TRUE(folded.ok()) << folded.status().message();
  EXPECT_EQ(folded->name, "审查: 代码");
  EXPECT_EQ(folded->description, "Review a change before it lands.");
}

TEST(SkillFrontMatter, RefusesWhatTheSpecCannotCarry) {
  for (const std::string& text :
       {std::string("name: x\ndescription: y\n"),                          // no fence
        std::string("---\nname: x\ndescription: y\n"),                     // never closed
        std::string("---\nname: x\n---\n"),                                // no description
        std::string("---\n- a\n- b\n---\n"),                               // not a mapping
        std::string("---\nname: [a, b]\ndescription: y\n---\n"),           // not a string
        std::string("---\nname: x\ndescription: |\n  one\n  two\n---\n"),  // two lines
        std::string("---\nname: \" x\"\ndescription: y\n---\n"),           // a leading space
        std::string("---\nname: x\ndescription: \"\"\n---\n"),             // empty
        std::string("---\nname: \"x\\u3000\"\ndescription: y\n---\n"),     // U+3000 last
        std::string("---\nname: \"a\\u2028b\"\ndescription: y\n---\n"),    // a line separator
        std::string("---\nname: \"\\tx\"\ndescription: y\n---\n"),         // a tab first
        std::string("---\nname: x\ndescription: [unclosed\n---\n"),        // not YAML
        "---\nname: " + std::string(129, 'n') + "\ndescription: y\n---\n"}) {
    auto r = ParseSkillFrontMatter(text);
    EXPECT_FALSE(r.ok()) << text;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << text;
    }
  }
}

TEST(PackageFingerprint, CoversEveryFileAndChangesWithAnyOfThem) {
  TempDir dir;
  const fs::path pkg = fs::path(dir.path()) / "pkg";
  Write(pkg / "SKILL.md", Skill("a", "b"));
  Write(pkg / "scripts" / "run.sh", "echo hi\n");
  auto first = PackageFingerprint(pkg.string());
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->size(), 64u);
  EXPECT_EQ(*PackageFingerprint(pkg.string()), *first) << "stable";
  Write(pkg / "scripts" / "run.sh", "echo ho\n");
  auto edited = PackageFingerprint(pkg.string());
  EXPECT_NE(*edited, *first) << "a script's bytes count";
  fs::rename(pkg / "scripts" / "run.sh", pkg / "scripts" / "go.sh");
  EXPECT_NE(*PackageFingerprint(pkg.string()), *edited) << "so does a name";
  Write(fs::path(dir.path()) / "outside.txt", "one");
  fs::create_symlink(fs::path(dir.path()) / "outside.txt", pkg / "link");
  auto linked = PackageFingerprint(pkg.string());
  ASSERT_TRUE(linked.ok()) << linked.status().message();
  Write(fs::path(dir.path()) / "outside.txt", "two");
  EXPECT_EQ(*PackageFingerprint(pkg.string()), *linked)
      << "a link is its target's text, never followed";
  fs::remove(pkg / "link");
  fs::create_symlink(fs::path(dir.path()) / "elsewhere.txt", pkg / "link");
  EXPECT_NE(*PackageFingerprint(pkg.string()), *linked) << "another target is another package";
  ASSERT_EQ(mkfifo((pkg / "fifo").c_str(), 0600), 0);
  EXPECT_FALSE(PackageFingerprint(pkg.string()).ok()) << "a FIFO refuses the package";
  EXPECT_FALSE(PackageFingerprint((fs::path(dir.path()) / "missing").string()).ok());
}

TEST(ExternalSkillRoots, ParsesTheSettingAndRefusesOtherForms) {
  auto roots = ParseExternalSkillRoots("user=/home/me/.codex/skills/,project=/repo/.agents/skills");
  ASSERT_TRUE(roots.ok());
  ASSERT_EQ(roots->size(), 2u);
  EXPECT_EQ((*roots)[0].installation_scope, "user");
  EXPECT_EQ((*roots)[0].path, "/home/me/.codex/skills");
  EXPECT_TRUE(ParseExternalSkillRoots("")->empty());
  EXPECT_FALSE(ParseExternalSkillRoots("/home/me/skills").ok());
  EXPECT_FALSE(ParseExternalSkillRoots("global=/x").ok());
  EXPECT_FALSE(ParseExternalSkillRoots("user=relative/path").ok());
}

class ExternalSkillRegistryTest : public ::testing::Test {
 protected:
  Fixture f;
  TempDir roots;
  fs::path user = fs::path(roots.path()) / "user";
  fs::path project = fs::path(roots.path()) / "project";
};

TEST_F(ExternalSkillRegistryTest, UnconfiguredIsUnavailable) {
  ExternalSkillRegistry registry(*f.store, {}, "host-a");
  EXPECT_FALSE(registry.configured());
  EXPECT_EQ(registry.Scan(Scope("project:x")).status().code(), Code::kRegistryUnavailable);
  EXPECT_EQ(registry.List(Scope("project:x"), true).status().code(), Code::kRegistryUnavailable);
}

TEST_F(ExternalSkillRegistryTest, ScanListResolveFollowTheLivePackage) {
  Write(user / "friendly-python" / "SKILL.md", Skill("friendly-python", "Tidy Python files."));
  Write(user / "review" / "SKILL.md", Skill("review", "Review a change."));
  Write(user / "no-front-matter" / "SKILL.md", "# just text\n");
  fs::create_directories(user / "empty");
  Write(user / "stray.txt", "not a package");
  Write(project / "审查" / "SKILL.md", Skill("审查", "代码审查。"));
  ExternalSkillRegistry registry(*f.store,
                                 {{"user", user.string()},
                                  {"project", project.string()},
                                  {"user", (fs::path(roots.path()) / "not-yet").string()}},
                                 "host-a");
  const std::string scope_id = f.NewScope("project:skills");

  auto scan = registry.Scan(Scope("project:skills"));
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  EXPECT_EQ(scan->skipped, 2) << "no front matter, and no SKILL.md";
  ASSERT_EQ(scan->registrations.size(), 3u);
  EXPECT_EQ(scan->registrations[0].external_skill_id, "external:codex:project/%E5%AE%A1%E6%9F%A5");
  EXPECT_EQ(scan->registrations[1].external_skill_id, "external:codex:user/friendly-python");
  const ExternalSkillRegistration python = scan->registrations[1];
  EXPECT_EQ(python.host_id, "host-a");
  EXPECT_EQ(python.installation_scope, "user");
  EXPECT_EQ(python.locator, (user / "friendly-python").string());
  EXPECT_EQ(python.description, "Tidy Python files.");

  // The scope by its server id is the same registry; another scope has none.
  auto listed = registry.List(Scope(scope_id), false);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  EXPECT_EQ(listed->size(), 3u);
  EXPECT_TRUE(registry.List(Scope("project:other"), true)->empty());
  // A scope that exists but was never scanned has none either (sanitizers caught a range-for over
  // a temporary's registrations here).
  f.NewScope("project:never-scanned");
  EXPECT_TRUE(registry.List(Scope("project:never-scanned"), true)->empty());
  EXPECT_EQ(
      registry
          .Resolve(Scope("project:never-scanned"), "external:codex:user/x", std::string(64, '0'))
          .status()
          .code(),
      Code::kNotFound);
  EXPECT_TRUE(registry.List(Scope("scp_01M8NC5D77J0AZR7MPH36M8K8T"), true)->empty());

  auto exact =
      registry.Resolve(Scope("project:skills"), python.external_skill_id, python.fingerprint);
  ASSERT_TRUE(exact.ok());
  EXPECT_TRUE(exact->available);
  EXPECT_EQ(exact->entrypoint, (user / "friendly-python" / "SKILL.md").string());

  // A changed package no longer resolves, and is left out of the list unless asked; the
  // registration keeps the fingerprint it was scanned with (no silent move to the new version).
  Write(user / "friendly-python" / "SKILL.md",
        Skill("friendly-python", "Tidy Python files.", "Run black first.\n"));
  auto changed =
      registry.Resolve(Scope("project:skills"), python.external_skill_id, python.fingerprint);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(changed->available);
  EXPECT_EQ(changed->entrypoint, "");
  EXPECT_EQ(changed->registration.fingerprint, python.fingerprint);
  EXPECT_EQ(registry.List(Scope("project:skills"), false)->size(), 2u);
  EXPECT_EQ(registry.List(Scope("project:skills"), true)->size(), 3u);

  // Another fingerprint than the registered one is unavailable, never a fallback; an unknown id
  // is 404; a removed package is unavailable.
  auto rescan = registry.Scan(Scope("project:skills"));
  const std::string fresh = rescan->registrations[1].fingerprint;
  EXPECT_NE(fresh, python.fingerprint);
  EXPECT_FALSE(
      registry.Resolve(Scope("project:skills"), python.external_skill_id, python.fingerprint)
          ->available);
  EXPECT_TRUE(
      registry.Resolve(Scope("project:skills"), python.external_skill_id, fresh)->available);
  EXPECT_EQ(
      registry.Resolve(Scope("project:skills"), "external:codex:user/nope", fresh).status().code(),
      Code::kNotFound);
  EXPECT_EQ(
      registry.Resolve(Scope("project:skills"), python.external_skill_id, "ABC").status().code(),
      Code::kInvalidArgument);
  fs::remove_all(user / "review");
  auto gone = registry.Resolve(Scope("project:skills"), "external:codex:user/review",
                               rescan->registrations[2].fingerprint);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->available);

  // An unknown server id cannot be scanned into; a key that names no scope makes it, as a write
  // does (the registry only ever holds scopes of the store).
  EXPECT_EQ(registry.Scan(Scope("scp_01M8NC5D77J0AZR7MPH36M8K8T")).status().code(),
            Code::kNotFound);
  EXPECT_TRUE(registry.List(Scope("project:new"), true)->empty());
  ASSERT_TRUE(registry.Scan(Scope("project:new")).ok());
  EXPECT_EQ(registry.List(Scope("project:new"), true)->size(), 2u);
  auto made = f.memory->FindScope(Scope("project:new"));
  ASSERT_TRUE(made.ok() && made->has_value()) << "the scan made the scope";
}

TEST_F(ExternalSkillRegistryTest, SkipsWhatARegistrationCannotCarry) {
  Write(user / std::string(130, 'a') / "SKILL.md", Skill("long", "An id over 128 characters."));
  Write(user / "line\nbreak" / "SKILL.md", Skill("line", "A locator on two lines."));
  Write(user / "trailing " / "SKILL.md", Skill("space", "A locator ending in a space."));
  Write(user / "caf\xE9" / "SKILL.md", Skill("latin1", "A locator that is not UTF-8."));
  Write(user / "ok" / "SKILL.md", Skill("ok", "A package."));
  // The first root holding a usable package of a name wins: here the second's, the first's is
  // not one.
  Write(project / "same" / "SKILL.md", "no front matter\n");
  const fs::path project2 = fs::path(roots.path()) / "project2";
  Write(project2 / "same" / "SKILL.md", Skill("same", "The second root's."));
  ExternalSkillRegistry registry(
      *f.store,
      {{"user", user.string()}, {"project", project.string()}, {"project", project2.string()}},
      "host-a");
  auto scan = registry.Scan(Scope("project:skills"));
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  EXPECT_EQ(scan->skipped, 5);
  ASSERT_EQ(scan->registrations.size(), 2u);
  EXPECT_EQ(scan->registrations[0].external_skill_id, "external:codex:project/same");
  EXPECT_EQ(scan->registrations[0].locator, (project2 / "same").string());
  EXPECT_EQ(scan->registrations[1].external_skill_id, "external:codex:user/ok");
}

}  // namespace
}  // namespace pc::testing
