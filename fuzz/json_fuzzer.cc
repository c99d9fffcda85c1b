// common/json_parse.h: ParseJson on any bytes, at the default depth and at a small one.
// Checked: never throws or crashes; what it accepts serializes and parses back equal (so it has
// no repeated keys, is UTF-8 and nested within the bound); what it refuses is InvalidArgument
// with a UTF-8 message (MCP sends it back as JSON text; fuzz/corpus/json/regression-stray-byte).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/json_parse.h"
#include "common/utf8.h"
#include "fuzz_check.h"

namespace {

int Depth(const nlohmann::json& j) {
  int deepest = 0;
  if (j.is_object() || j.is_array())
    for (const auto& child : j) deepest = std::max(deepest, Depth(child));
  return (j.is_object() || j.is_array()) ? deepest + 1 : 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (int max_depth : {kMaxJsonDepth, 3}) {
    Result<nlohmann::json> j = ParseJson(text, max_depth);
    if (!j.ok()) {
      FUZZ_CHECK(j.status().code() == Code::kInvalidArgument, j.status().ToString());
      FUZZ_CHECK(IsValidUtf8(j.status().message()), fuzz::Printable(j.status().message()));
      continue;
    }
    FUZZ_CHECK(Depth(*j) <= max_depth, fuzz::Printable(text));
    std::string dumped;
    try {
      dumped = j->dump();  // strict: throws on text that is not UTF-8
    } catch (const std::exception& e) {
      FUZZ_CHECK(false, std::string("accepted JSON does not serialize: ") + e.what());
    }
    Result<nlohmann::json> again = ParseJson(dumped, max_depth);
    FUZZ_CHECK(again.ok(), dumped + ": " + again.status().ToString());
    FUZZ_CHECK(*again == *j, dumped);
  }
  return 0;
}
