// Generating an Experience candidate (RFC 0051's generate_experience; docs/review.md, "Generating
// an Experience"): the configured model reads exactly the evidence the caller selected — sources,
// memory revisions, Experience or handoff revisions — and answers one {situation, action, outcome,
// lesson} or that there is no lesson. A usable answer becomes a pending candidate with that exact
// evidence, through ReviewService's own propose (the same checks, the same inbox); nothing else is
// ever written, and nothing approves itself.
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "extract/extractor.h"
#include "model/review.h"
#include "store/store.h"

namespace pc {

class ReviewService;

struct GenerateExperienceRequest {
  std::string scope_id;
  Evidence evidence;
  std::optional<MemoryRef>
      target;  // the Experience head this replaces (also among evidence.artifacts)
  std::optional<std::string> reason;
};

struct GeneratedExperience {
  std::optional<ArtifactCandidate> candidate;  // null: the model found no lesson (the spec's no_op)
};

class ExperienceGenerator {
 public:
  // `extractor` may be null: Generate is then CapabilityUnavailable.
  ExperienceGenerator(Store& store, Extractor* extractor, ReviewService& review)
      : store_(store), extractor_(extractor), review_(review) {}

  bool available() const { return extractor_ != nullptr; }
  // InvalidArgument for a bad request or evidence the scope does not have, before the model is
  // asked; ArtifactConflict when the target is not (or no longer) its Experience's head; the
  // provider's error (nothing proposed) when the model fails or answers unusably.
  Result<GeneratedExperience> Generate(const GenerateExperienceRequest& req,
                                       const std::string& actor);

 private:
  Store& store_;
  Extractor* extractor_;
  ReviewService& review_;
};

}  // namespace pc
