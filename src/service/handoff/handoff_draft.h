// What the extraction model is asked when it drafts a handoff, and how its answer is read
// (docs/handoff.md): the evidence is shown as C1…Cn; the answer names evidence only by those ids,
// so every citation of a draft is one the request supplied. The answer is untrusted: anything
// off the format or the spec's limits makes it unusable (ProviderError) and nothing is returned.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "extract/extractor.h"
#include "model/types.h"

namespace pc {

inline constexpr const char* kHandoffPromptVersion = "handoff_v1";
inline constexpr size_t kEvidencePromptBytes = 4000;  // each piece of evidence, as shown

struct ShownEvidence {
  HandoffCitation citation;
  std::string kind;  // what it is: "source", "memory entry (decision)", "handoff revision" …
  std::string text;  // cut to kEvidencePromptBytes
};

ExtractionRequest BuildHandoffRequest(const std::string& objective,
                                      const std::vector<ShownEvidence>& evidence,
                                      int64_t max_bytes);
// The draft in the answer, with the caller's objective (never the model's). ProviderError when
// unusable.
Result<HandoffContent> ParseHandoffAnswer(const std::string& answer, const std::string& objective,
                                          const std::vector<ShownEvidence>& evidence);
// Cuts trailing omissions, then trailing state statements (one stays), until the content's text
// fits `max_bytes`, and says what was cut in one more omission. ProviderError when even that
// does not fit.
Result<HandoffContent> FitHandoff(HandoffContent c, int64_t max_bytes);

}  // namespace pc
