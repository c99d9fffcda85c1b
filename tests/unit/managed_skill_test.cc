// Managed Skills (RFC 0051, docs/skills.md) through the review inbox, on the real store (SQLite,
// and PostgreSQL under the pg: prefix): a proposal is a pending `skill` candidate checked against
// the spec's SkillProposal; approve commits exactly the current version as a Skill revision with
// the candidate's and target's compare-and-set; generation asks the model (a fake OpenAI endpoint
// on loopback) in one of the three provenance shapes, and an import captures an external
// package's SKILL.md at its exact fingerprint. Every refusal changes nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/bounded_read.h"
#include "fake_chat.h"
#include "hooks/skill_export.h"
#include "service/core/validation.h"
#include "service/review/review_service.h"
#include "service/skills/external_skills.h"
#include "service/skills/skill_generator.h"
#include "service/skills/skill_package.h"
#include "test_util.h"

namespace pc {
namespace {

using nlohmann::json;

// An error's details.field.
std::string SkillField(const Status& s) {
  for (const Detail& d : s.details())
    if (d.key == "field") return std::get<std::string>(d.value);
  return "";
}

SkillContent CurrencySkill(const std::string& name = "csv-currency-validation") {
  return SkillContent{name,
                      "Use when an importer reads money columns from CSV.",
                      "1. Find where rows are parsed.\n2. Check the currency against ISO 4217.\n"
                      "3. Report a rejected row with its line number.",
                      {"a row with currency XYZ is rejected", "the importer's tests pass"}};
}

constexpr const char* kSkillAnswer = R"({"skill": {"name": "strip-bom-before-csv",
  "description": "Use when a CSV import fails on the first column's name.",
  "instructions": "1. Strip a UTF-8 BOM.\n2. Parse the file.",
  "validation": ["the first column's name has no BOM"]}})";

class ManagedSkillTest : public testing::ChatModelTest {
 protected:
  std::string scope = f.NewScope("project:skills");
  ReviewService review{*f.store};
  SkillGenerator generator{*f.store, chat.get(), review, nullptr};

  void SetUp() override {
    ASSERT_TRUE(
        sources
            .Add(scope, {{"work_log", "", "The import failed on a BOM until we stripped it.", "{}",
                          "log-1"}})
            .ok());
  }
  Evidence Log() { return Evidence{{{kContentSourceName, "log-1"}}, {}}; }

  // An approved Experience to build Skills from.
  MemoryRef ApprovedExperience() {
    auto c = review.ProposeExperience(
        {scope,
         {"an Excel CSV", "stripped the BOM", "the import worked", "strip a BOM first"},
         Log(),
         std::nullopt,
         std::nullopt},
        "t");
    EXPECT_TRUE(c.ok()) << testing::Describe(c);
    auto a = review.Approve(scope, c->candidate_id, 1, "reviewer");
    EXPECT_TRUE(a.ok()) << testing::Describe(a);
    return a.ok() ? *a->result : MemoryRef{};
  }
  ArtifactCandidate ProposeSkill(const SkillContent& k, Evidence e,
                                 std::optional<MemoryRef> target = std::nullopt) {
    if (target) e.artifacts.push_back(*target);
    auto c = review.ProposeSkill({scope, k, e, target, std::nullopt}, "tester");
    EXPECT_TRUE(c.ok()) << testing::Describe(c);
    return c.ok() ? *c : ArtifactCandidate{};
  }
  size_t Pending(const std::string& family = kSkillFamily) {
    auto page = review.List({scope, CandidateStatus::kPending, family, std::nullopt, 50});
    EXPECT_TRUE(page.ok());
    return page.ok() ? page->items.size() : 0;
  }
  json LastInput() {
    auto request = json::parse(fake.chat_bodies().back());
    return json::parse(request["messages"][1]["content"].get<std::string>());
  }
};

TEST_F(ManagedSkillTest, AProposalIsPendingUntilApprovedThenAnExactRevision) {
  const MemoryRef experience = ApprovedExperience();
  Evidence e = Log();
  e.artifacts.push_back(experience);
  ArtifactCandidate c = ProposeSkill(CurrencySkill(), e);
  EXPECT_EQ(c.family, kSkillFamily);
  EXPECT_EQ(c.status, CandidateStatus::kPending);
  ASSERT_TRUE(c.current.skill);
  EXPECT_EQ(*c.current.skill, CurrencySkill());
  // Read back from the store: the inbox lists it under family skill, not experience.
  auto got = review.Get(scope, c.candidate_id);
  PC_ASSERT_OK(got);
  ASSERT_TRUE(got->current.skill);
  EXPECT_EQ(*got->current.skill, CurrencySkill());
  EXPECT_EQ(Pending(kSkillFamily), 1u);
  EXPECT_EQ(Pending(kExperienceFamily), 0u);

  // Revised with an Experience proposal: refused, the candidate unchanged.
  ReviseCandidateRequest wrong{scope, c.candidate_id, 1,           {"s", "a", "o", "l"},
                               e,     std::nullopt,   std::nullopt};
  auto refused = review.Revise(wrong, "tester");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument) << refused.status().ToString();
  SkillContent better = CurrencySkill();
  better.validation.push_back("a rejected row names its line");
  ReviseCandidateRequest revise{scope, c.candidate_id, 1, {}, e, std::nullopt, "adds a check"};
  revise.skill = better;
  auto revised = review.Revise(revise, "editor");
  PC_ASSERT_OK(revised);
  EXPECT_EQ(revised->current.version, 2);
  // The first version stays as it was.
  std::optional<CandidateVersion> v1;
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(v1, txn.FindCandidateVersion(c.scope_id, c.candidate_id, 1));
    return Status::Ok();
  }));
  ASSERT_TRUE(v1 && v1->skill);
  EXPECT_EQ(*v1->skill, CurrencySkill());

  auto approved = review.Approve(scope, c.candidate_id, 2, "reviewer");
  PC_ASSERT_OK(approved);
  ASSERT_TRUE(approved->result);
  EXPECT_EQ(approved->result->family, kSkillFamily);
  EXPECT_EQ(approved->result->revision, 1);
  EXPECT_EQ(approved->result->artifact_id.rfind("skl_", 0), 0u) << approved->result->artifact_id;
  auto skill = review.GetSkill(scope, *approved->result);
  PC_ASSERT_OK(skill);
  EXPECT_EQ(skill->content, better);
  EXPECT_EQ(skill->evidence, e);
  EXPECT_EQ(skill->actor, "reviewer");
  // An Experience reference is not a Skill, and a Skill is not an Experience.
  EXPECT_EQ(review.GetSkill(scope, experience).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(review.GetExperience(scope, *approved->result).status().code(), Code::kInvalidArgument);
  MemoryRef two = *approved->result;
  two.revision = 2;
  EXPECT_EQ(review.GetSkill(scope, two).status().code(), Code::kNotFound);
  EXPECT_EQ(review.GetSkill("project:elsewhere", *approved->result).status().code(),
            Code::kNotFound);
}

TEST_F(ManagedSkillTest, AReplacementTargetsTheSkillHeadAndLosesToAnEarlierApproval) {
  ArtifactCandidate first = ProposeSkill(CurrencySkill(), Log());
  auto approved = review.Approve(scope, first.candidate_id, 1, "reviewer");
  PC_ASSERT_OK(approved);
  const MemoryRef head = *approved->result;
  ArtifactCandidate a = ProposeSkill(CurrencySkill("currency-a"), Log(), head);
  ArtifactCandidate b = ProposeSkill(CurrencySkill("currency-b"), Log(), head);
  auto won = review.Approve(scope, a.candidate_id, 1, "reviewer");
  PC_ASSERT_OK(won);
  EXPECT_EQ(*won->result, (MemoryRef{kSkillFamily, head.artifact_id, 2}));
  auto lost = review.Approve(scope, b.candidate_id, 1, "reviewer");
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), Code::kArtifactConflict) << lost.status().ToString();
  auto still = review.Get(scope, b.candidate_id);
  PC_ASSERT_OK(still);
  EXPECT_EQ(still->status, CandidateStatus::kPending) << "a refused approval changes nothing";
  // A Skill proposal cannot target an Experience, nor an Experience proposal a Skill.
  const MemoryRef experience = ApprovedExperience();
  Evidence e = Log();
  e.artifacts.push_back(experience);
  auto wrong = review.ProposeSkill({scope, CurrencySkill(), e, experience, std::nullopt}, "t");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), Code::kInvalidArgument);
  Evidence s = Log();
  s.artifacts.push_back(*won->result);
  auto wrong2 =
      review.ProposeExperience({scope, {"s", "a", "o", "l"}, s, *won->result, std::nullopt}, "t");
  ASSERT_FALSE(wrong2.ok());
  EXPECT_EQ(wrong2.status().code(), Code::kInvalidArgument);
}

TEST_F(ManagedSkillTest, TheSpecsLimitsAreKeptAndARefusalProposesNothing) {
  auto with = [](auto change) {
    SkillContent k = CurrencySkill();
    change(k);
    return k;
  };
  const std::vector<std::pair<SkillContent, std::string>> cases = {
      {with([](SkillContent& k) { k.name = ""; }), "proposal.name"},
      {with([](SkillContent& k) { k.name = "two\nlines"; }), "proposal.name"},
      {with([](SkillContent& k) { k.name = " leading"; }), "proposal.name"},
      {with([](SkillContent& k) { k.name = "ideographic\u3000"; }), "proposal.name"},
      {with([](SkillContent& k) { k.name = std::string(129, 'n'); }), "proposal.name"},
      {with([](SkillContent& k) { k.description = "a\u2028b"; }), "proposal.description"},
      {with([](SkillContent& k) { k.description = std::string(2001, 'd'); }),
       "proposal.description"},
      {with([](SkillContent& k) { k.instructions = " \n\t "; }), "proposal.instructions"},
      {with([](SkillContent& k) { k.instructions = std::string(32001, 'i'); }),
       "proposal.instructions"},
      {with([](SkillContent& k) { k.validation.clear(); }), "proposal.validation"},
      {with([](SkillContent& k) { k.validation.assign(33, "check"); }), "proposal.validation"},
      {with([](SkillContent& k) { k.validation[1] = "two\nlines"; }), "proposal.validation[1]"},
      {with([](SkillContent& k) { k.validation[0] = "\xff"; }), "proposal.validation[0]"},
  };
  for (const auto& [k, field] : cases) {
    auto out = review.ProposeSkill({scope, k, Log(), std::nullopt, std::nullopt}, "t");
    ASSERT_FALSE(out.ok()) << field;
    EXPECT_TRUE(out.status().code() == Code::kInvalidArgument ||
                out.status().code() == Code::kTooLarge)
        << out.status().ToString();
    EXPECT_EQ(SkillField(out.status()), field) << out.status().ToString();
  }
  // At the limits it is accepted: 128 CJK characters of name, 32 checks.
  SkillContent edge = CurrencySkill();
  edge.name.clear();
  for (int i = 0; i < 128; ++i) edge.name += "技";
  edge.validation.assign(32, "检查通过");
  PC_ASSERT_OK(review.ProposeSkill({scope, edge, Log(), std::nullopt, std::nullopt}, "t"));
  EXPECT_EQ(Pending(), 1u);
}

TEST_F(ManagedSkillTest, GenerationFromExperienceShowsExactlyTheEvidenceAndProposes) {
  const MemoryRef experience = ApprovedExperience();
  fake.ScriptChat({{kSkillAnswer}});
  auto out = generator.Generate(
      {scope, "experience", {{}, {experience}}, std::nullopt, std::nullopt}, "generate:tester");
  PC_ASSERT_OK(out);
  ASSERT_TRUE(out->candidate);
  const ArtifactCandidate& c = *out->candidate;
  EXPECT_EQ(c.family, kSkillFamily);
  ASSERT_TRUE(c.current.skill);
  EXPECT_EQ(c.current.skill->name, "strip-bom-before-csv");
  EXPECT_EQ(c.current.evidence.artifacts, std::vector<MemoryRef>{experience});
  ASSERT_TRUE(c.current.reason);
  EXPECT_NE(c.current.reason->find("skill_v1"), std::string::npos) << *c.current.reason;
  json in = LastInput();
  EXPECT_EQ(in["origin"], "experience");
  ASSERT_EQ(in["artifacts"].size(), 1u);
  EXPECT_EQ(in["artifacts"][0]["family"], "experience");
  EXPECT_NE(in["artifacts"][0]["text"].get<std::string>().find("strip a BOM first"),
            std::string::npos);
  EXPECT_TRUE(in["sources"].empty());

  // usage: the target Skill and the sources that show how it fared; the model sees what it
  // replaces.
  auto approved = review.Approve(scope, c.candidate_id, 1, "reviewer");
  PC_ASSERT_OK(approved);
  fake.ScriptChat({{kSkillAnswer}});
  Evidence usage = Log();
  usage.artifacts.push_back(*approved->result);
  auto evolved = generator.Generate({scope, "usage", usage, *approved->result, std::nullopt}, "t");
  PC_ASSERT_OK(evolved);
  ASSERT_TRUE(evolved->candidate);
  EXPECT_EQ(evolved->candidate->current.target, approved->result);
  in = LastInput();
  EXPECT_EQ(in["replaces"], "A1");
  EXPECT_EQ(in["artifacts"][0]["family"], "skill");

  // {"skill": null} is a no-op.
  fake.ScriptChat({{R"({"skill": null})"}});
  auto none = generator.Generate({scope, "source", Log(), std::nullopt, std::nullopt}, "t");
  PC_ASSERT_OK(none);
  EXPECT_FALSE(none->candidate);
  EXPECT_EQ(Pending(), 1u);
}

TEST_F(ManagedSkillTest, AProvenanceThatDoesNotFitItsOriginIsRefusedBeforeTheModel) {
  const MemoryRef experience = ApprovedExperience();
  Evidence both = Log();
  both.artifacts.push_back(experience);
  struct Case {
    GenerateSkillRequest req;
    std::string field;
  };
  for (const Case& c : std::vector<Case>{
           {{scope, "experience", Log(), std::nullopt, std::nullopt}, "artifact_refs"},
           {{scope, "source", both, std::nullopt, std::nullopt}, "artifact_refs[0]"},
           {{scope, "source", {}, std::nullopt, std::nullopt}, "source_refs"},
           {{scope, "usage", Log(), std::nullopt, std::nullopt}, "target"},
           {{scope, "memory", Log(), std::nullopt, std::nullopt}, "origin"},
           {{scope, "usage", both, experience, std::nullopt}, "target.family"}}) {
    auto out = generator.Generate(c.req, "t");
    ASSERT_FALSE(out.ok()) << c.req.origin;
    EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status().ToString();
    EXPECT_EQ(SkillField(out.status()), c.field) << out.status().ToString();
  }
  EXPECT_EQ(fake.chat_requests(), 0);
  // Without a model: generation_unavailable, after the request's own checks, before any read.
  SkillGenerator without{*f.store, nullptr, review, nullptr};
  auto unavailable = without.Generate({scope, "source", Log(), std::nullopt, std::nullopt}, "t");
  EXPECT_EQ(unavailable.status().code(), Code::kGenerationUnavailable);
  EXPECT_FALSE(without.available());
  // An unusable answer proposes nothing.
  for (const char* answer :
       {"no json", R"({"skill": "x"})",
        R"({"skill": {"name": "n", "description": "d", "instructions": "i", "validation": []}})",
        R"({"skill": {"name": "two\nlines", "description": "d", "instructions": "i",
            "validation": ["v"]}})"}) {
    fake.ScriptChat({{answer}});
    auto out = generator.Generate({scope, "source", Log(), std::nullopt, std::nullopt}, "t");
    ASSERT_FALSE(out.ok()) << answer;
    EXPECT_EQ(out.status().code(), Code::kProviderError) << answer << out.status().ToString();
  }
  EXPECT_EQ(Pending(), 0u);
}

class SkillImportTest : public ManagedSkillTest {
 protected:
  testing::TempDir roots;
  std::string package = roots.path() + "/friendly-python";
  std::unique_ptr<ExternalSkillRegistry> registry;
  std::unique_ptr<SkillGenerator> importer;

  void SetUp() override {
    ManagedSkillTest::SetUp();
    WritePackage("1. Run ruff format.\n2. Run the tests.\n");
    registry = std::make_unique<ExternalSkillRegistry>(
        *f.store, std::vector<ExternalSkillRoot>{{"user", roots.path()}}, LocalHostId());
    importer = std::make_unique<SkillGenerator>(*f.store, chat.get(), review, registry.get());
  }
  void WritePackage(const std::string& body) {
    std::filesystem::create_directories(package);
    std::ofstream(package + "/SKILL.md", std::ios::binary)
        << "---\nname: friendly-python\ndescription: Tidy a Python change.\n---\n"
        << body;
  }
  ExternalSkillRegistration Scanned() {
    auto scan = registry->Scan(*ScopeRef::Parse(scope));
    EXPECT_TRUE(scan.ok()) << testing::Describe(scan);
    EXPECT_EQ(scan->registrations.size(), 1u);
    return scan->registrations.at(0);
  }
};

TEST_F(SkillImportTest, AnImportCapturesTheExactSnapshotAndProposesFromIt) {
  const ExternalSkillRegistration r = Scanned();
  fake.ScriptChat({{kSkillAnswer}});
  auto out = importer->Import({scope, r.external_skill_id, r.fingerprint, "fork", std::nullopt},
                              "import:tester");
  PC_ASSERT_OK(out);
  ASSERT_TRUE(out->candidate);
  const std::string key = "external-skill:" + r.external_skill_id + "@" + r.fingerprint;
  ASSERT_EQ(out->candidate->current.evidence.sources.size(), 1u);
  EXPECT_EQ(out->candidate->current.evidence.sources[0].source_id, key);
  json in = LastInput();
  EXPECT_EQ(in["origin"], "fork");
  EXPECT_NE(in["sources"][0]["text"].get<std::string>().find("ruff format"), std::string::npos);
  // The snapshot is a source of the scope, kept as archive, with where it came from.
  std::optional<Source> s;
  PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> sc, FindScopeNamed(txn, scope));
    PC_ASSIGN_OR_RETURN(s, txn.FindSourceByPublicId(sc->scope_id, key));
    return Status::Ok();
  }));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, kExternalSkillSourceKind);
  EXPECT_EQ(s->purpose, kPurposeArchive);
  EXPECT_NE(s->content.find("ruff format"), std::string::npos);
  EXPECT_EQ(json::parse(s->metadata_json)["fingerprint"], r.fingerprint);
  // Importing the same version again cites the same source (one capture).
  fake.ScriptChat({{kSkillAnswer}});
  auto again =
      importer->Import({scope, r.external_skill_id, r.fingerprint, "import", std::nullopt}, "t");
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->candidate->current.evidence, out->candidate->current.evidence);
  EXPECT_EQ(Pending(), 2u);
}

TEST_F(SkillImportTest, AChangedPackageOrAMissingRegistryOrModelImportsNothing) {
  const ExternalSkillRegistration r = Scanned();
  WritePackage("1. Run black.\n");  // changed since the scan
  auto changed =
      importer->Import({scope, r.external_skill_id, r.fingerprint, "import", std::nullopt}, "t");
  EXPECT_EQ(changed.status().code(), Code::kExternalSkillChanged) << changed.status().ToString();
  auto unknown = importer->Import(
      {scope, "external:codex:user/nothing", r.fingerprint, "import", std::nullopt}, "t");
  EXPECT_EQ(unknown.status().code(), Code::kNotFound) << unknown.status().ToString();
  auto bad_mode =
      importer->Import({scope, r.external_skill_id, r.fingerprint, "copy", std::nullopt}, "t");
  EXPECT_EQ(bad_mode.status().code(), Code::kInvalidArgument);
  SkillGenerator no_registry{*f.store, chat.get(), review, nullptr};
  EXPECT_EQ(
      no_registry.Import({scope, r.external_skill_id, r.fingerprint, "import", std::nullopt}, "t")
          .status()
          .code(),
      Code::kRegistryUnavailable);
  SkillGenerator no_model{*f.store, nullptr, review, registry.get()};
  EXPECT_EQ(
      no_model.Import({scope, r.external_skill_id, r.fingerprint, "import", std::nullopt}, "t")
          .status()
          .code(),
      Code::kGenerationUnavailable);
  EXPECT_EQ(fake.chat_requests(), 0);
  EXPECT_EQ(Pending(), 0u);
  // Nothing was captured either: the scope holds only the work log.
  auto listed = sources.List(scope, 0, 10);
  PC_ASSERT_OK(listed);
  EXPECT_EQ(listed->items.size(), 1u);
}

TEST(SkillExport, TheSkillMdRoundTripsThroughAnAgentsReaderAndIsWrittenOnlyOverItsOwnFiles) {
  testing::TempDir dir;
  const json skill = {
      {"artifact", {{"family", "skill"}, {"artifact_id", "skl_1"}, {"revision", 3}}},
      {"content",
       {{"name", "审查: 代码 #1"},
        {"description", "- Use when: a change touches \"money\" columns."},
        {"instructions", "Step one.\n\nStep two.\n"},
        {"validation", {"tests pass", "审查通过"}}}},
      {"source_refs", json::array()},
      {"artifact_refs", json::array()}};
  const std::string md = RenderSkillMd(skill);
  EXPECT_EQ(md, RenderSkillMd(skill)) << "deterministic";
  // A host reads the same name and description back (our reader is the external registry's).
  auto front = ParseSkillFrontMatter(md);
  PC_ASSERT_OK(front);
  EXPECT_EQ(front->name, "审查: 代码 #1");
  EXPECT_EQ(front->description, "- Use when: a change touches \"money\" columns.");
  EXPECT_NE(md.find("Step one.\n\nStep two.\n\n## Validation\n\n- tests pass\n- 审查通过\n"),
            std::string::npos)
      << md;

  const std::string dest = dir.path() + "/pkg";
  auto first = WriteSkillExport(dest, "codex", "project:x", skill, "2026-12-04T00:00:00Z");
  PC_ASSERT_OK(first);
  EXPECT_FALSE(first->replaced);
  json manifest = json::parse(*ReadBoundedFile(dest + "/" + kSkillExportManifest, 1 << 20));
  EXPECT_EQ(manifest["artifact"], skill["artifact"]);
  EXPECT_EQ(manifest["skill_md_sha256"], first->skill_md_sha256);
  // Its own export is replaced (a newer revision); an edited SKILL.md or a foreign file is not.
  auto second = WriteSkillExport(dest, "codex", "project:x", skill, "2026-12-04T00:00:01Z");
  PC_ASSERT_OK(second);
  EXPECT_TRUE(second->replaced);
  std::ofstream(dest + "/SKILL.md", std::ios::app) << "a person's note\n";
  auto edited = WriteSkillExport(dest, "codex", "project:x", skill, "2026-12-04T00:00:02Z");
  ASSERT_FALSE(edited.ok());
  EXPECT_NE(ReadBoundedFile(dest + "/SKILL.md", 1 << 20)->find("a person's note"),
            std::string::npos);
  const std::string other = dir.path() + "/other";
  std::filesystem::create_directories(other);
  std::ofstream(other + "/README.md") << "mine\n";
  ASSERT_FALSE(WriteSkillExport(other, "claude", "project:x", skill, "t").ok());
  EXPECT_FALSE(std::filesystem::exists(other + "/SKILL.md"));
  EXPECT_FALSE(WriteSkillExport(dir.path() + "/x", "cursor", "project:x", skill, "t").ok());
  EXPECT_EQ(*DefaultSkillDestination("claude", "csv-check"), ".claude/skills/csv-check");
  EXPECT_FALSE(DefaultSkillDestination("codex", "../escape").ok());
}

}  // namespace
}  // namespace pc
