// What one request's JSON may cost: the parse of a body of each shape that is worst per byte
// (testing/json_shapes.h), from 1 KiB to 8 MiB, under the limits the HTTP layer parses it with
// (api/body_limits.h), holds at most a fixed multiple of the body's size on the heap at its peak.
// This program replaces operator new to count (testing/alloc_counter.h): a test of memory, not of
// time — bench/json_bench shows that time is linear.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "alloc_counter.h"
#include "api/body_limits.h"
#include "common/json_parse.h"
#include "json_shapes.h"

namespace pc {
namespace {

// Peak heap of a parse as a multiple of the text's size (plus a small constant for tiny bodies).
// Measured (bench/json_bench): 32× for `[{},{},…]` (an empty object is a value, a map and a slot
// for 3 bytes of text), 25× for deep nesting, 16× for small numbers, 4× for long strings.
constexpr size_t kMaxTimesSize = 40;
constexpr size_t kSlackBytes = 64 * 1024;

size_t PeakOfParse(const std::string& text, const JsonLimits& limits, bool* ok) {
  alloc_counter::ResetPeak();
  const size_t before = alloc_counter::InUse();
  {
    Result<nlohmann::json> parsed = ParseJson(text, limits);
    *ok = parsed.ok();
  }
  return alloc_counter::Peak() - before;
}

TEST(JsonCost, PeakHeapIsASmallMultipleOfTheBody) {
  const BodyLimits limits;
  for (const auto& shape : testing::JsonShapes()) {
    for (size_t size :
         {size_t{1} << 10, size_t{16} << 10, size_t{64} << 10, size_t{1} << 20, size_t{8} << 20}) {
      const std::string text = shape.make(size);
      // Parsed as the largest route would (8 MiB), and as the route whose limit it fits.
      for (size_t limit : {limits.batch, limits.small, limits.large}) {
        if (text.size() > limit) continue;
        bool ok = false;
        const size_t peak = PeakOfParse(text, JsonLimitsForBody(limit), &ok);
        EXPECT_LE(peak, kMaxTimesSize * text.size() + kSlackBytes)
            << shape.name << " " << text.size() << " bytes under a " << limit
            << "-byte limit: peak " << peak << " bytes (" << (ok ? "parsed" : "refused") << ")";
      }
    }
  }
}

// A body past its route's value limit is refused as too large, and one within it is parsed.
TEST(JsonCost, TheValueLimitRefusesAsTooLarge) {
  const JsonLimits small = JsonLimitsForBody(BodyLimits{}.small);
  const std::string wide = testing::JsonShapes()[0].make(60 * 1024);  // ~30,000 numbers
  auto refused = ParseJson(wide, small);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kTooLarge);
  EXPECT_TRUE(ParseJson(wide, JsonLimitsForBody(BodyLimits{}.batch)).ok());
}

}  // namespace
}  // namespace pc
