// The daily review's request and answer (docs/review.md, "The daily review"): one day's sources
// and the memory's entries in; proposed experiences and a "tomorrow" note out, each citing the
// sources shown. The answer is untrusted like an extraction's: each item is checked on its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "extract/extractor.h"
#include "extract/operations.h"
#include "model/types.h"

namespace pc {

inline constexpr const char* kReviewPromptVersion = "review_v1";
inline constexpr size_t kMaxReviewExperiences = 5;

ExtractionRequest BuildDailyReviewRequest(const std::string& date,
                                          const std::vector<Source>& sources,
                                          const std::vector<ManifestItem>& entries);

struct ReviewedExperience {
  std::string situation, action, outcome, lesson;
  std::vector<size_t> evidence;  // indexes of the sources shown
  std::string json;
};
struct ReviewNote {
  std::string text;
  std::vector<size_t> evidence;
};
struct DailyReviewAnswer {
  std::vector<ReviewedExperience> experiences;
  std::optional<ReviewNote> tomorrow;
  std::vector<Rejection> rejected;
};

// ProviderError when the answer is not one JSON object.
Result<DailyReviewAnswer> ParseDailyReviewAnswer(const std::string& answer, size_t sources_shown);

}  // namespace pc
