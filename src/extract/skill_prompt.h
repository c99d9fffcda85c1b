// Generating one managed Skill from caller-selected evidence (POST /v1/skill/generate, and an
// external Skill's import or fork; docs/skills.md): what the model is shown (the provenance's
// origin, the exact sources and artifacts the caller cited) and what its answer may be — one
// complete {name, description, instructions, validation}, or an explicit null when the evidence
// shows no reusable procedure. The answer is untrusted: the review service checks it again.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "extract/experience_prompt.h"  // ShownArtifact
#include "extract/extractor.h"
#include "model/review.h"
#include "model/types.h"

namespace pc {

inline constexpr const char* kSkillPromptVersion = "skill_v1";
// The most bytes of a Skill's instructions the model may answer (the spec's 32,000 characters).
inline constexpr size_t kGeneratedInstructionsBytes = 128000;

// `origin`: experience, source, usage, import or fork. `replaces`: the index in `artifacts` of
// the Skill this one replaces.
ExtractionRequest BuildSkillRequest(const std::string& origin, const std::vector<Source>& sources,
                                    const std::vector<ShownArtifact>& artifacts,
                                    std::optional<size_t> replaces);

// nullopt: the model answered {"skill": null}. ProviderError when the answer is not one JSON
// object or its skill is not complete and well formed (its limits are the review's to check).
Result<std::optional<SkillContent>> ParseSkillAnswer(const std::string& answer);

}  // namespace pc
