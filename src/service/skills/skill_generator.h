// Generating a managed Skill candidate (RFC 0051's generate_skill and import_external_skill;
// docs/skills.md): the configured model reads exactly the evidence the caller selected, in one of
// the provenance shapes the spec names, and answers one {name, description, instructions,
// validation} or that there is none. A usable answer becomes a pending `skill` candidate through
// ReviewService (the same checks, the same inbox); nothing approves itself.
//   experience: at least one approved Experience revision, and optionally exact sources;
//   source: exact sources only (documentation, material a person wrote);
//   usage: the exact target Skill revision and the sources that show how it fared;
//   import / fork: an external Skill's SKILL.md, captured as a source of the scope at the exact
//     registered fingerprint, in the same transaction as the candidate.
// Without a model every generation is 503 generation_unavailable, before anything is read or
// written.
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "extract/extractor.h"
#include "model/review.h"
#include "service/core/scope_ref.h"
#include "store/store.h"

namespace pc {

class ExternalSkillRegistry;
class ReviewService;

// The kind of the source an import captures (purpose archive: never extracted into memory).
inline constexpr const char* kExternalSkillSourceKind = "external-skill";

struct GenerateSkillRequest {
  std::string scope_id;
  std::string origin;  // experience, source or usage
  Evidence evidence;
  std::optional<MemoryRef> target;  // the Skill head this replaces (also among evidence.artifacts)
  std::optional<std::string> reason;
};

struct ImportSkillRequest {
  std::string scope_id;
  std::string external_skill_id;
  std::string fingerprint;
  std::string mode;  // import or fork
  std::optional<std::string> reason;
};

struct GeneratedSkill {
  std::optional<ArtifactCandidate> candidate;  // null: the model found none (the spec's no_op)
};

// The request checks of a generation that need no store: the scope's name, the origin, the
// evidence's shape and the provenance the origin asks for.
Status CheckGenerateSkillRequest(const GenerateSkillRequest& req);

class SkillGenerator {
 public:
  // `extractor` null: every call is generation_unavailable. `registry` null: imports are
  // external_skill_registry_unavailable.
  SkillGenerator(Store& store, Extractor* extractor, ReviewService& review,
                 ExternalSkillRegistry* registry)
      : store_(store), extractor_(extractor), review_(review), registry_(registry) {}

  bool available() const { return extractor_ != nullptr; }
  Result<GeneratedSkill> Generate(const GenerateSkillRequest& req, const std::string& actor);
  // 404 when the scope has no such registration; 409 external_skill_changed when that version is
  // not available here now.
  Result<GeneratedSkill> Import(const ImportSkillRequest& req, const std::string& actor);

 private:
  Status CheckModel() const;
  // The model's answer to `request`, outside any transaction: nullopt for {"skill": null}; the
  // provider's error ("`doing` the Skill failed, nothing was proposed") or an unusable answer.
  Result<std::optional<SkillContent>> Ask(const ExtractionRequest& request,
                                          const std::string& doing, ModelUsage& usage);
  void RecordSkillUsage(const std::string& scope_id, const ModelUsage& usage);

  Store& store_;
  Extractor* extractor_;
  ReviewService& review_;
  ExternalSkillRegistry* registry_;
};

}  // namespace pc
