// ParseJson: the one JSON reader of the process. Deep nesting, repeated keys and numbers out of
// range are errors at parse time, never a crash or a silent choice later.
#include "common/json_parse.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace pc {
namespace {

TEST(ParseJson, ReadsOrdinaryJson) {
  auto j = ParseJson(R"({"a": [1, 2.5, "x", {"b": null}], "c": true, "d": "订单"})");
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ((*j)["a"][3]["b"], nullptr);
  EXPECT_EQ((*j)["d"], "订单");
  EXPECT_TRUE(ParseJson("[]").ok());
  EXPECT_TRUE(ParseJson("  7 ").ok());
}

TEST(ParseJson, BoundsNestingAtParseTime) {
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJson(ok).ok());
  std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  auto refused = ParseJson(deep);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("nested"), std::string::npos);
  // What crashed the server: ~75,000 levels inside a field of an otherwise valid body.
  std::string hostile =
      R"({"metadata": )" + std::string(75000, '[') + std::string(75000, ']') + "}";
  EXPECT_FALSE(ParseJson(hostile).ok());
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += R"({"k":)";
  EXPECT_FALSE(ParseJson(objects + "1" + std::string(100000, '}')).ok());
  // Unterminated nesting is refused as early, without reading to the end.
  EXPECT_FALSE(ParseJson(std::string(1000000, '[')).ok());
}

TEST(ParseJson, RefusesRepeatedKeys) {
  auto dup = ParseJson(R"({"scope_id": "A", "text": "x", "scope_id": "B"})");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("duplicate key \"scope_id\""), std::string::npos);
  EXPECT_FALSE(ParseJson(R"({"a": {"k": 1, "k": 2}})").ok());
  // The same key in different objects is fine.
  EXPECT_TRUE(ParseJson(R"({"k": {"k": 1}, "j": [{"k": 1}, {"k": 2}]})").ok());
}

TEST(ParseJson, NumbersOutOfRangeAndBadText) {
  for (const char* bad : {"1e400", R"({"limit": -1e400})", "[1e99999]", "{", "nul", "\"\xff\"", "",
                          "{\"a\":1} trailing"}) {
    auto r = ParseJson(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
    }
  }
  EXPECT_TRUE(ParseJson("1e300").ok());
  EXPECT_TRUE(ParseJson("18446744073709551616").ok());  // past uint64: a double, as JSON allows
}

TEST(ParseJson, ValuesAreCountedAndCapped) {
  JsonLimits limits;
  limits.max_values = 4;  // [1,2,3] is four values: the array and its three elements
  EXPECT_TRUE(ParseJson("[1,2,3]", limits).ok());
  auto refused = ParseJson("[1,2,3,4]", limits);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kTooLarge);
  EXPECT_NE(refused.status().message().find("more than 4 values"), std::string::npos);
  EXPECT_TRUE(ParseJson(R"({"a":1,"b":{"c":2}})", limits).ok());
  EXPECT_FALSE(ParseJson(R"({"a":1,"b":{"c":2,"d":3}})", limits).ok());
  // Keys are not values: {"a":1,"b":2} is three.
  limits.max_values = 3;
  EXPECT_TRUE(ParseJson(R"({"a":1,"b":2})", limits).ok());
}

// What made the parse quadratic was nlohmann's callback parse; the SAX build reads a 320,000-object
// array (21 s before) as any other. Its result is the value nlohmann's own parse makes.
TEST(ParseJson, BuildsTheSameValueAsNlohmann) {
  std::string wide = "[";
  for (int i = 0; i < 320000; ++i) wide += (i ? ",{\"k\":" : "{\"k\":") + std::to_string(i) + "}";
  wide += "]";
  auto ours = ParseJson(wide);
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  EXPECT_EQ(*ours, nlohmann::json::parse(wide));
  const char* mixed =
      R"({"a":[1,-2,3.5,"x",null,true,false,{"b":[[],{}]}],"c":{"d":"订单","e":18446744073709551615}})";
  EXPECT_EQ(*ParseJson(mixed), nlohmann::json::parse(mixed));
}

TEST(CountTopLevelElements, CountsWithoutBuilding) {
  EXPECT_EQ(CountTopLevelElements("[]"), 0u);
  EXPECT_EQ(CountTopLevelElements(R"([{"a":[1,2,3]}, [4, 5], "x"])"), 3u);
  EXPECT_EQ(CountTopLevelElements(R"({"a": 1})"), 1u);
  EXPECT_EQ(CountTopLevelElements("[1,2"), 0u);  // not JSON
  EXPECT_EQ(CountTopLevelElements(std::string(100000, '[')), 0u);
}

}  // namespace
}  // namespace pc
