// UTF-8 validation and Unicode normalization (utf8proc is wrapped here and nowhere else).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pc {

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
bool IsValidUtf8(std::string_view s);

// NFC normalization of valid UTF-8 (canonical composition only: what a digest of text hashes).
Result<std::string> NormalizeNfc(std::string_view s);

// NFKC normalization of valid UTF-8. Fails with InvalidArgument on malformed input.
Result<std::string> NormalizeNfkc(std::string_view s);

// NFKC plus Unicode case folding (for search keys, not for stored text).
Result<std::string> NormalizeNfkcCasefold(std::string_view s);

// How many characters (code points) `s` has; nothing when it is not valid UTF-8. Limits the spec
// states in characters (scope_id, kind, query, reason, source_id, content) are counted with it.
std::optional<size_t> CountCodePoints(std::string_view s);

// The code points of `s`; false (and `out` partial) on malformed UTF-8.
bool DecodeUtf8(std::string_view s, std::vector<int32_t>& out);

// Format characters (U+200B …) and Default_Ignorable_Code_Point (U+034F, U+115F, U+3164 …), and
// space separators: characters that render as nothing.
bool IsInvisibleCodePoint(int32_t cp);

// ECMAScript's white space and line terminators (its \s: the spec's JSON Schema patterns are
// ECMA-262 regular expressions), and its line terminators alone (what `.` does not match).
bool IsEcmaSpace(int32_t cp);
bool IsEcmaLineTerminator(int32_t cp);

// `s` with every byte that does not start a valid character written as \xFF: text that quotes
// bytes it was given (a parser's "last read: …") stays UTF-8.
std::string EscapeInvalidUtf8(std::string_view s);

// The longest prefix of `s` that is at most `max_bytes` long and ends on a character boundary.
std::string_view Utf8Prefix(std::string_view s, size_t max_bytes);

// `text` if it fits in `max_bytes`; else its longest prefix that fits together with `mark`,
// cut on a character boundary, followed by `mark`.
inline constexpr std::string_view kCutMark = " […]";
std::string CutUtf8(std::string_view text, size_t max_bytes, std::string_view mark = kCutMark);

// `text` for comparing what it says: NFKC case-folded (as it is, if that fails), every run of
// white space one space, none at the ends. The context builder's near-duplicate check and the
// memory exam's phrase matching.
std::string FoldForMatch(std::string_view text);

// `needle` in `haystack` (both folded), where a needle that begins or ends with an ASCII letter or
// digit must begin or end a word there: "tag" is not in "staging", "no" not in "know". The exam's
// grading and the graph channel's entity matching.
bool FoldedContains(std::string_view haystack, std::string_view needle);

}  // namespace pc
