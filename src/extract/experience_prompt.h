// Generating one Experience from caller-selected evidence (POST /v1/experience/generate,
// docs/review.md "Generating an Experience"): what the model is shown (the exact sources, entries
// and artifacts the caller cited) and what its answer may be — one complete {situation, action,
// outcome, lesson}, or an explicit null when the evidence shows no lesson. The answer is untrusted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "extract/extractor.h"
#include "model/review.h"
#include "model/types.h"
#include "wire/json.h"

namespace pc {

inline constexpr const char* kExperiencePromptVersion = "experience_v1";
// The most bytes of an artifact (an Experience or a handoff) the model is shown, and of each
// field of its answer.
inline constexpr size_t kArtifactPromptBytes = 4000;
inline constexpr size_t kGeneratedFieldBytes = 4000;

// An artifact revision the caller cited, as the model reads it: A1…An.
struct ShownArtifact {
  std::string family;
  std::string text;
};

// The prompt input's "artifacts" (A1…An, each cut to kArtifactPromptBytes) and "replaces" (the id
// of the one at index `replaces`), set on `in` (the Experience's and the Skill's prompts).
void AddShownArtifacts(Json& in, const std::vector<ShownArtifact>& artifacts,
                       std::optional<size_t> replaces);

// `replaces`: the index in `artifacts` of the Experience this one replaces (the request's target).
// `entries_cut`: the cited memories hold more active entries than `entries` (the model is told).
ExtractionRequest BuildExperienceRequest(const std::vector<Source>& sources,
                                         const std::vector<ManifestItem>& entries,
                                         const std::vector<ShownArtifact>& artifacts,
                                         std::optional<size_t> replaces, bool entries_cut = false);

// nullopt: the model answered {"experience": null}, the evidence shows no lesson. ProviderError
// when the answer is not one JSON object or its experience is not complete and well formed.
Result<std::optional<ExperienceContent>> ParseExperienceAnswer(const std::string& answer);

}  // namespace pc
