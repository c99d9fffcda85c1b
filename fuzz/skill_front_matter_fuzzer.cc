// service/skills/skill_package.h's ParseSkillFrontMatter on any bytes: a SKILL.md is written by
// whoever put a package under a configured root, and libyaml parses its front matter.
// Checked: never crashes; an accepted name and description are what the spec can carry (valid
// UTF-8, one line, no space at either end, within their limits); the same input gives the same
// answer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/utf8.h"
#include "fuzz_check.h"
#include "service/skills/skill_package.h"

namespace {

void CheckLine(const std::string& value, size_t max_chars, const std::string& shown) {
  FUZZ_CHECK(!value.empty() && pc::IsValidUtf8(value), shown);
  FUZZ_CHECK(*pc::CountCodePoints(value) <= max_chars, shown);
  FUZZ_CHECK(value.find_first_of("\r\n") == std::string::npos, shown);
  FUZZ_CHECK(value.front() != ' ' && value.back() != ' ', shown);
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
