// Server-issued identifiers: a prefix naming the thing, then a ULID (48-bit milliseconds + 80
// random bits, Crockford base32), so ids sort by creation time and never collide in practice.
#pragma once

#include <string>
#include <string_view>

namespace pc {

inline constexpr std::string_view kScopePrefix = "scp_";
inline constexpr std::string_view kMemoryPrefix = "mem_";
inline constexpr std::string_view kHandoffPrefix = "hnd_";
inline constexpr std::string_view kEntryPrefix = "ent_";
inline constexpr std::string_view kEntryVersionPrefix = "env_";
inline constexpr std::string_view kSourcePrefix = "src_";
inline constexpr std::string_view kExperiencePrefix = "exp_";
inline constexpr std::string_view kSkillPrefix = "skl_";
inline constexpr std::string_view kCandidatePrefix = "cand_";
inline constexpr std::string_view kProjectPrefix = "prj_";   // a Handoff Report Project
inline constexpr std::string_view kActivityPrefix = "act_";  // a Handoff Report Activity Event

// A new id: `prefix` + 26 characters. Thread-safe.
std::string NewId(std::string_view prefix);

// True when `id` has the prefix and a well-formed 26-character ULID body.
bool IsWellFormedId(std::string_view id, std::string_view prefix);

}  // namespace pc
