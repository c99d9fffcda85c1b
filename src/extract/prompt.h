// Builds what the model sees for one flush window: the prompt file's instructions, the window's
// usable sources as S1…Sn and the memory's entries as E1…Em, each cut to a byte budget so the
// prompt has a fixed maximum size (source_window_limit × kSourcePromptBytes + kMaxPromptEntries ×
// kEntryPromptBytes, plus the instructions).
#pragma once

#include <string>
#include <vector>

#include "extract/extractor.h"
#include "model/types.h"
#include "wire/json.h"

namespace pc {

inline constexpr const char* kPromptVersion = "extract_v3";
inline constexpr size_t kSourcePromptBytes = 4000;
inline constexpr size_t kEntryPromptBytes = 1000;
inline constexpr size_t kMaxPromptEntries = 40;

// The prompt file in use (prompts/extract_v3.md: its four write gates — worth keeping, not
// already there, supported, well formed — and the triples of the graph channel), compiled in.
const std::string& ExtractionInstructions();
// The answer's JSON Schema (documented in docs/extraction.md).
const std::string& ExtractionOutputSchema();

// What a model is shown of the sources (S1…Sn) and entries (E1…Em), each cut to its byte budget:
// {"sources": […], "entries": […]}; the extraction and the daily review both start from it.
Json PromptInput(const std::vector<Source>& sources, const std::vector<ManifestItem>& entries);

ExtractionRequest BuildExtractionRequest(const std::vector<Source>& sources,
                                         const std::vector<ManifestItem>& entries);

}  // namespace pc
