// IANA time zones, from the system's zone database (/usr/share/zoneinfo, through Howard Hinnant's
// date library): a Handoff Report's dates in its Project's zone. Never the server's local zone.
#pragma once

#include <cstdint>
#include <string>

namespace pc {

// Whether the zone database has `name` ("UTC" always; a path-like or relative name never).
bool KnownTimeZone(const std::string& name);
// The offset from UTC of `zone` at `unix_ms`, in minutes (0 for a zone it does not know).
int UtcOffsetMinutes(const std::string& zone, int64_t unix_ms);
// `unix_ms` as a wall-clock time in `zone`: "2026-08-09 23:59 +08:00".
std::string FormatZonedTime(const std::string& zone, int64_t unix_ms);

}  // namespace pc
