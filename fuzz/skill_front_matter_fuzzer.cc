// service/skills/skill_package.h's ParseSkillFrontMatter on any bytes: a SKILL.md is written by
// whoever put a package under a configured root, and libyaml parses its front matter.
// Checked: never crashes; an accepted name and description are what the spec can carry (valid
// UTF-8, one line, no space at either end, within their limits); the same input gives the same
// answer.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "fuzz_check.h"
#include "service/skills/skill_package.h"

namespace {

// The spec's ^\S(?:.*\S)?$ as ECMA-262 reads it, and the length limit.
void CheckLine(const std::string& value, size_t max_chars, const std::string& shown) {
  std::vector<int32_t> cps;
  FUZZ_CHECK(pc::DecodeUtf8(value, cps) && !cps.empty() && cps.size() <= max_chars, shown);
  for (int32_t cp : cps) FUZZ_CHECK(!pc::IsEcmaLineTerminator(cp), shown);
  FUZZ_CHECK(!pc::IsEcmaSpace(cps.front()) && !pc::IsEcmaSpace(cps.back()), shown);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string shown = fuzz::Printable(text);
  Result<SkillFrontMatter> first = ParseSkillFrontMatter(text);
  Result<SkillFrontMatter> again = ParseSkillFrontMatter(text);
  FUZZ_CHECK(first.ok() == again.ok(), shown);
  if (!first.ok()) {
    FUZZ_CHECK(first.status().code() == Code::kInvalidArgument, shown);
    return 0;
  }
  FUZZ_CHECK(first->name == again->name && first->description == again->description, shown);
  CheckLine(first->name, kMaxSkillNameChars, shown);
  CheckLine(first->description, kMaxSkillDescriptionChars, shown);
  return 0;
}
