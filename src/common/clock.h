// Wall-clock time in the one format PowerContext stores and prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pc {

// Milliseconds since the Unix epoch.
int64_t NowMillis();

// RFC 3339 UTC with milliseconds, e.g. "2026-11-30T04:27:13.123Z".
std::string FormatTimestamp(int64_t unix_ms);
// The milliseconds of "YYYY-MM-DDTHH:MM:SS[.mmm]Z" (nullopt when not that form).
std::optional<int64_t> ParseTimestamp(const std::string& text);
// Any RFC 3339 date-time as other programs write it: a fraction of any length (milliseconds
// kept), `Z` or a ±hh:mm offset. Milliseconds since the epoch.
std::optional<int64_t> ParseRfc3339(const std::string& text);

}  // namespace pc
