// common/json_parse.h: ParseJson on any bytes, at the default depth and at a small one.
// Checked: never throws or crashes; what it accepts serializes and parses back equal (so it has
// no repeated keys, is UTF-8 and nested within the bound); what it refuses is InvalidArgument
// with a UTF-8 message (MCP sends it back as JSON text; fuzz/corpus/json/regression-stray-byte).
// Differential: since issue 27 ParseJson builds the value itself (a SAX handler), so what it
// accepts must equal nlohmann's own DOM parse of the same text; with a value cap, it is accepted
// exactly when it holds no more values than the cap (else TooLarge). Its RFC 8785 canonical form
// (common/canonical_json.h) always exists (the value is UTF-8 and within the depth) and is its
// own canonical form; it parses back to an equal value unless the value has an integer wider
// than 2^53 (which RFC 8785 reads as the nearest double).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/canonical_json.h"
#include "common/json_parse.h"
#include "common/utf8.h"
#include "fuzz_check.h"

namespace {

size_t Values(const nlohmann::json& j) {
  size_t n = 1;
  if (j.is_object() || j.is_array())
    for (const auto& child : j) n += Values(child);
  return n;
}

// An integer a double cannot hold exactly (RFC 8785 reads it as the nearest one).
bool HasWideInteger(const nlohmann::json& j) {
  constexpr int64_t kExact = int64_t{1} << 53;
  if (j.is_number_unsigned()) return j.get<uint64_t>() > static_cast<uint64_t>(kExact);
  if (j.is_number_integer()) return j.get<int64_t>() > kExact || j.get<int64_t>() < -kExact;
  if (j.is_object() || j.is_array())
    for (const auto& child : j)
      if (HasWideInteger(child)) return true;
  return false;
}

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
    if (max_depth == kMaxJsonDepth) {
      nlohmann::json theirs = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      FUZZ_CHECK(!theirs.is_discarded() && theirs == *j,
                 "differs from nlohmann's parse: " + dumped);
      Result<std::string> canonical = CanonicalJson(*j);
      FUZZ_CHECK(canonical.ok(), dumped + ": " + canonical.status().ToString());
      Result<nlohmann::json> reread = ParseJson(*canonical, max_depth);
      FUZZ_CHECK(reread.ok(), *canonical + ": " + reread.status().ToString());
      FUZZ_CHECK(HasWideInteger(*j) || *reread == *j,
                 "canonical form reads back different: " + *canonical);
      Result<std::string> twice = CanonicalJson(*reread);
      FUZZ_CHECK(twice.ok() && *twice == *canonical, "canonical form is not stable: " + *canonical);
      const size_t values = Values(*j);
      for (size_t cap : {values, values - 1}) {
        if (cap == 0) continue;
        Result<nlohmann::json> capped = ParseJson(text, JsonLimits{kMaxJsonDepth, cap});
        FUZZ_CHECK(capped.ok() == (cap >= values),
                   dumped + " with a cap of " + std::to_string(cap));
        if (!capped.ok())
          FUZZ_CHECK(capped.status().code() == Code::kTooLarge, capped.status().ToString());
      }
    }
  }
  return 0;
}
