#include "service/skills/skill_generator.h"

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/ids.h"
#include "extract/skill_prompt.h"
#include "model/citation.h"
#include "service/core/actor.h"
#include "service/core/usage_log.h"
#include "service/core/validation.h"
#include "service/review/review_service.h"
#include "service/skills/external_skills.h"

namespace pc {
namespace {

// The most bytes of an external SKILL.md an import captures as a source (the default limit of
// a source's content).
constexpr size_t kMaxImportedSkillBytes = 256 * 1024;

Status Bad(const std::string& field, const std::string& message) {
  return FieldError(field, message);
}

// A Skill revision as the model reads it.
std::string SkillText(const SkillContent& k) {
  std::string out = "Name: " + k.name + "\nDescription: " + k.description + "\nInstructions:\n" +
                    k.instructions + "\nValidation:\n";
  for (const std::string& v : k.validation) out += "- " + v + "\n";
  return out;
}

// The provenance each origin asks for (the spec's GenerateSkillRequest.origin).
Status CheckProvenance(const GenerateSkillRequest& req) {
  const Evidence& e = req.evidence;
  size_t experiences = 0;
  for (size_t i = 0; i < e.artifacts.size(); ++i) {
    const MemoryRef& r = e.artifacts[i];
    if (req.target && r == *req.target) continue;
    const std::string at = "artifact_refs[" + std::to_string(i) + "]";
    if (req.origin != "experience" || r.family != kExperienceFamily)
      return Bad(at, req.origin == "experience"
                         ? at + ": a Skill generated from experience cites approved Experiences "
                                "(family \"experience\") and the Skill it replaces, nothing else"
                         : at + ": a Skill generated from " + req.origin +
                               " cites sources, and an artifact only as its target");
    ++experiences;
  }
  if (req.origin == "experience" && experiences == 0)
    return Bad("artifact_refs",
               "origin experience needs at least one approved Experience among artifact_refs");
  if (req.origin == "source" && e.sources.empty())
    return Bad("source_refs", "origin source needs at least one source among source_refs");
  if (req.origin == "usage") {
    if (!req.target)
      return Bad("target", "origin usage needs the exact Skill revision it evolves as target");
    if (e.sources.empty())
      return Bad("source_refs",
                 "origin usage needs the sources that show how the Skill fared (source_refs)");
  }
  return Status::Ok();
}

std::string DefaultReason(const Extractor& model, const std::string& what) {
  return what + " by " + model.name() + " (" + kSkillPromptVersion + ")";
}

}  // namespace

Status CheckGenerateSkillRequest(const GenerateSkillRequest& req) {
  PC_RETURN_IF_ERROR(ReviewService::CheckEvidenceRequest(req.scope_id, req.evidence, req.target,
                                                         req.reason, kSkillFamily));
  if (req.origin != "experience" && req.origin != "source" && req.origin != "usage")
    return Bad("origin", "origin must be experience, source or usage");
  return CheckProvenance(req);
}

Result<std::optional<SkillContent>> SkillGenerator::Ask(const ExtractionRequest& request,
                                                        const std::string& doing,
                                                        ModelUsage& usage) {
  auto raw = extractor_->Extract(request, usage);
  if (!raw.ok())
    return Status(raw.status().code(),
                  doing + " the Skill failed, nothing was proposed: " + raw.status().message());
  return ParseSkillAnswer(*raw);
}

// The model's tokens count as memory extraction's, as an Experience's generation (the same
// provider, reading sources); recorded only once the request has succeeded, so a failed one
// leaves the store as it was.
void SkillGenerator::RecordSkillUsage(const std::string& scope_id, const ModelUsage& usage) {
  RecordUsage(store_, scope_id, UsagePurpose::kMemoryExtraction, UsageOperation::kGeneration,
              usage);
}

Status SkillGenerator::CheckModel() const {
  if (extractor_) return Status::Ok();
  return Status(Code::kGenerationUnavailable,
                "generating a managed Skill needs an extraction model and none is configured "
                "(set extract_provider); propose_skill takes content written by hand");
}

Result<GeneratedSkill> SkillGenerator::Generate(const GenerateSkillRequest& req,
                                                const std::string& actor) {
  PC_RETURN_IF_ERROR(CheckGenerateSkillRequest(req));
  PC_RETURN_IF_ERROR(CheckModel());
  std::vector<Source> sources;
  std::vector<ShownArtifact> artifacts;
  std::optional<size_t> replaces;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    sources.clear();
    artifacts.clear();
    replaces.reset();
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, req.scope_id));
    if (!scope)
      return Bad("source_refs",
                 "the scope " + req.scope_id + " has no sources or artifacts to cite");
    PC_RETURN_IF_ERROR(ReviewService::CheckEvidenceIn(txn, scope->scope_id, req.evidence,
                                                      req.target, &sources, kSkillFamily));
    for (const MemoryRef& r : req.evidence.artifacts) {
      if (r.family == kSkillFamily) {
        PC_ASSIGN_OR_RETURN(std::optional<Skill> k, txn.FindSkill(r.artifact_id, r.revision));
        if (!k) return Internal("skill revision " + FormatMemoryRef(r) + " has no content");
        replaces = artifacts.size();
        artifacts.push_back({kSkillFamily, SkillText(k->content)});
      } else {
        PC_ASSIGN_OR_RETURN(std::optional<Experience> x,
                            txn.FindExperience(r.artifact_id, r.revision));
        if (!x) return Internal("experience revision " + FormatMemoryRef(r) + " has no content");
        artifacts.push_back({kExperienceFamily, ExperienceText(x->content)});
      }
    }
    return Status::Ok();
  }));

  ModelUsage usage;
  PC_ASSIGN_OR_RETURN(
      std::optional<SkillContent> content,
      Ask(BuildSkillRequest(req.origin, sources, artifacts, replaces), "generating", usage));
  auto succeeded = [&] { RecordSkillUsage(req.scope_id, usage); };
  if (!content) {
    succeeded();
    return GeneratedSkill{};
  }
  ProposeSkillRequest propose{req.scope_id, *content, req.evidence, req.target,
                              req.reason ? req.reason
                                         : std::optional<std::string>(DefaultReason(
                                               *extractor_, "generated from " + req.origin))};
  // The request was checked: a proposal that does not pass is the model's (too long, two lines).
  if (Status ok = ReviewService::CheckProposeSkillRequest(propose); !ok.ok())
    return Status(Code::kProviderError,
                  "the model's answer is not a usable Skill: " + ok.message());
  // Propose checks the evidence and target again in its own transaction (artifact_conflict when
  // the target moved while the model answered; nothing proposed).
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, review_.ProposeSkill(propose, actor));
  succeeded();
  return GeneratedSkill{std::move(c)};
}

Result<GeneratedSkill> SkillGenerator::Import(const ImportSkillRequest& req,
                                              const std::string& actor) {
  PC_ASSIGN_OR_RETURN(ScopeRef scope, ScopeRef::Parse(req.scope_id));
  PC_RETURN_IF_ERROR(CheckExternalSkillId(req.external_skill_id));
  PC_RETURN_IF_ERROR(CheckFingerprint(req.fingerprint));
  if (req.mode != "import" && req.mode != "fork") return Bad("mode", "mode must be import or fork");
  PC_RETURN_IF_ERROR(ReviewService::CheckReason(req.reason));
  if (!registry_ || !registry_->configured()) return ExternalSkillRegistryUnavailable();
  PC_RETURN_IF_ERROR(CheckModel());
  PC_ASSIGN_OR_RETURN(ExternalSkillSnapshot snap,
                      registry_->Snapshot(scope, req.external_skill_id, req.fingerprint));
  if (snap.skill_md.size() > kMaxImportedSkillBytes)
    return TooLarge("the package's SKILL.md is larger than " +
                    std::to_string(kMaxImportedSkillBytes / 1024) + " KiB; nothing was imported")
        .WithDetail("field", "external_skill_id");
  PC_RETURN_IF_ERROR(CheckText("SKILL.md", snap.skill_md, kMaxImportedSkillBytes));

  // The snapshot as the source it becomes: known by a key naming the exact version, so a second
  // import of the same version cites the same source.
  Source shown;
  shown.kind = kExternalSkillSourceKind;
  shown.purpose = kPurposeArchive;
  shown.content = snap.skill_md;
  shown.idempotency_key = "external-skill:" + req.external_skill_id + "@" + req.fingerprint;
  shown.metadata_json = nlohmann::json{{"external_skill_id", req.external_skill_id},
                                       {"fingerprint", req.fingerprint},
                                       {"mode", req.mode},
                                       {"host_id", snap.registration.host_id},
                                       {"installation_scope", snap.registration.installation_scope},
                                       {"locator", snap.registration.locator}}
                            .dump();

  ModelUsage usage;
  PC_ASSIGN_OR_RETURN(
      std::optional<SkillContent> content,
      Ask(BuildSkillRequest(req.mode, {shown}, {}, std::nullopt), "importing", usage));
  auto succeeded = [&] { RecordSkillUsage(req.scope_id, usage); };
  if (!content) {
    succeeded();
    return GeneratedSkill{};
  }
  ProposeSkillRequest propose{
      req.scope_id, *content,
      Evidence{{SourceEvidence{kContentSourceName, *shown.idempotency_key}}, {}}, std::nullopt,
      req.reason ? req.reason
                 : std::optional<std::string>(DefaultReason(
                       *extractor_, std::string(req.mode == "fork" ? "forked" : "imported") +
                                        " from external Skill " + req.external_skill_id))};
  if (Status ok = ReviewService::CheckProposeSkillRequest(propose); !ok.ok())
    return Status(Code::kProviderError,
                  "the model's answer is not a usable Skill: " + ok.message());
  ArtifactCandidate out;
  const std::string candidate_id = NewId(kCandidatePrefix);
  const int64_t now = NowMillis();
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> s, FindScopeNamed(txn, req.scope_id));
    if (!s) return NotFound("the scope " + req.scope_id + " does not exist");
    PC_ASSIGN_OR_RETURN(std::optional<Source> first,
                        txn.FindSourceByIdempotencyKey(s->scope_id, *shown.idempotency_key));
    if (first && first->content != shown.content)
      return Status(Code::kSourceConflict,
                    "source " + *shown.idempotency_key + " was captured already with other content")
          .WithDetail("source_id", *shown.idempotency_key);
    if (!first) {
      Source add = shown;
      add.source_id = NewId(kSourcePrefix);
      add.scope_id = s->scope_id;
      add.created_at_ms = now;
      PC_RETURN_IF_ERROR(txn.AppendSource(std::move(add)).status());
    }
    PC_ASSIGN_OR_RETURN(out, ReviewService::ProposeSkillIn(txn, propose, actor, candidate_id, now));
    return Status::Ok();
  }));
  succeeded();
  return GeneratedSkill{std::move(out)};
}

}  // namespace pc
