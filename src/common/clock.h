// Wall-clock time in the one format PowerContext stores and prints.
#pragma once

#include <cstdint>
#include <string>

namespace pc {

// Milliseconds since the Unix epoch.
int64_t NowMillis();

// RFC 3339 UTC with milliseconds, e.g. "2026-11-30T04:27:13.123Z".
std::string FormatTimestamp(int64_t unix_ms);

}  // namespace pc
