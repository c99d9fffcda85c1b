// Wall-clock time in the one format PowerContext stores and prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pc {

// Milliseconds since the Unix epoch (plus the offset a test set).
int64_t NowMillis();
// Tests only: moves NowMillis by `ms` from the system clock, for every thread (0: the real time).
// The clock a test injects to make entries expire without waiting (docs/expiry.md).
void SetClockOffsetForTesting(int64_t ms);

// RFC 3339 UTC with milliseconds, e.g. "2026-11-30T04:27:13.123Z".
std::string FormatTimestamp(int64_t unix_ms);
// The milliseconds of "YYYY-MM-DDTHH:MM:SS[.mmm]Z" (nullopt when not that form).
std::optional<int64_t> ParseTimestamp(const std::string& text);
// Any RFC 3339 date-time as other programs write it: a fraction of any length (milliseconds
// kept), `Z` or a ±hh:mm offset. Milliseconds since the epoch.
std::optional<int64_t> ParseRfc3339(const std::string& text);

// A length of time as people write one: "90d", "12h", "30m" (a positive whole number of days,
// hours or minutes, at most ten years). Milliseconds; nullopt when not that form.
std::optional<int64_t> ParseDurationMs(const std::string& text);
// The shortest of those forms that says `ms` exactly ("14d", "36h", "90m"); "0m" for less.
std::string FormatDurationMs(int64_t ms);
// A moment as people write one: a duration from `now_ms` ("14d"), a UTC date ("2027-01-31", its
// midnight) or an RFC 3339 date-time. Milliseconds since the epoch; nullopt when none of those.
std::optional<int64_t> ParseMoment(const std::string& text, int64_t now_ms);

}  // namespace pc
