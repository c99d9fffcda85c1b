// An Agent-native Skill package on this host (RFC 0051, docs/skills.md): a directory holding
// SKILL.md, whose YAML front matter names the skill and says when to use it. PowerContext reads a
// package and fingerprints it; it never writes, installs or runs one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pc {

inline constexpr const char* kSkillFileName = "SKILL.md";
inline constexpr size_t kMaxSkillFileBytes = 1 << 20;  // SKILL.md itself
inline constexpr size_t kMaxPackageBytes = 8 << 20;    // every file of a package together
inline constexpr size_t kMaxPackageFiles = 1000;
inline constexpr size_t kMaxFrontMatterBytes = 64 << 10;  // the YAML between the --- lines
// The spec's ExternalSkillRegistration limits, in characters.
inline constexpr size_t kMaxSkillNameChars = 128;
inline constexpr size_t kMaxSkillDescriptionChars = 2000;

struct SkillFrontMatter {
  std::string name, description;
};

// The front matter of a SKILL.md's text: a first line `---`, a YAML mapping, a line `---`. Its
// `name` and `description` must be non-empty strings that fit the spec (one line each once
// YAML has folded them, no space at either end, within the limits above); other keys are
// ignored. InvalidArgument says what is wrong.
Result<SkillFrontMatter> ParseSkillFrontMatter(std::string_view text);

// `value` as the spec's one-line text, its pattern ^\S(?:.*\S)?$ read as ECMA-262 reads it: valid
// UTF-8, no line terminator (\n, \r, U+2028, U+2029), neither end a white space (a tab, U+00A0,
// U+3000 …), 1 … max_chars characters. InvalidArgument names `key` and says which rule failed.
Status CheckSpecLine(std::string_view key, std::string_view value, size_t max_chars);

// The whole package's fingerprint: lower-case hex SHA-256 over each entry below `dir`, in byte
// order of its relative path ('/'-separated): a regular file as "f", the path, NUL, its size,
// NUL, its bytes; a symbolic link as "l", the path, NUL, the length of its target, NUL, the
// target (never followed); a directory as "d", the path, NUL (lengths in decimal ASCII). Files
// are read without following links and without blocking. Anything else (a FIFO, a device),
// more than kMaxPackageFiles entries or kMaxPackageBytes of files refuse the package
// (InvalidArgument / TooLarge), as does a directory that cannot be read.
Result<std::string> PackageFingerprint(const std::string& dir);

}  // namespace pc
