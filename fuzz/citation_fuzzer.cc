// model/citation.h: ParseCitation on any string. Checked: never crashes; what it accepts is
// valid (ValidateCitation) and survives FormatCitation → ParseCitation unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "model/citation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  std::string_view s(reinterpret_cast<const char*>(data), size);
  Result<Citation> c = ParseCitation(s);
  if (!c.ok()) {
    FUZZ_CHECK(c.status().code() == Code::kInvalidArgument, c.status().ToString());
    return 0;
  }
  FUZZ_CHECK(ValidateCitation(*c).ok(), fuzz::Printable(s));
  const std::string formatted = FormatCitation(*c);
  Result<Citation> again = ParseCitation(formatted);
  FUZZ_CHECK(again.ok(), "accepted " + fuzz::Printable(s) + " but not its own form " + formatted);
  FUZZ_CHECK(again->memory.family == c->memory.family &&
                 again->memory.artifact_id == c->memory.artifact_id &&
                 again->memory.revision == c->memory.revision && again->entry_id == c->entry_id &&
                 again->entry_version_id == c->entry_version_id,
             fuzz::Printable(s) + " → " + formatted);
  FUZZ_CHECK(FormatCitation(*again) == formatted, formatted);
  return 0;
}
