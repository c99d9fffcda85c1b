// The canonical citation string: `memory/mem_…@2#ent_…@env_…`.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "model/types.h"

namespace pc {

std::string FormatCitation(const Citation& c);
std::string FormatMemoryRef(const MemoryRef& m);  // `memory/mem_…@2`

// The spec's JSON shapes as compact text (the prepared context's content is rendered, not built
// from a JSON tree): ArtifactReference, MemoryCitation, SourceReference.
std::string ArtifactRefJson(const MemoryRef& m);
std::string CitationJson(const Citation& c);
std::string SourceRefJsonText(const Source& s);
// `s` as a JSON string: quotes, backslashes and every control character escaped.
std::string QuoteJson(std::string_view s);

// Parses the string form; InvalidArgument (naming what is wrong) on anything else.
Result<Citation> ParseCitation(std::string_view s);

// Checks the parts of a citation given as an object (family, ids, revision).
Status ValidateCitation(const Citation& c);

}  // namespace pc
