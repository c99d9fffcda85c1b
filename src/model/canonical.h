// Canonical content (invariant 4): what makes two writes "the same".
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace pc {

// Unicode NFKC, then leading/trailing white space removed and every run of white space folded to
// one ASCII space. Case is kept: "Use Postgres" and "use postgres" are different statements of
// record only if a person wrote them so; dedup stays exact rather than clever.
Result<std::string> CanonicalText(std::string_view text);

// SHA-256 of "kind\n" + canonical text: the content_hash stored with every entry version.
Result<std::string> ContentHash(std::string_view kind, std::string_view text);

// A kind is a short label: 1–128 characters (the spec's kind), not blank, no control characters.
bool IsValidKind(std::string_view kind);

}  // namespace pc
