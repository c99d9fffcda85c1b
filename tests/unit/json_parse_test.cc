// ParseJson: the one JSON reader of the process. Deep nesting, repeated keys and numbers out of
// range are errors at parse time, never a crash or a silent choice later.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/json_parse.h"

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
  std::string hostile = R"({"metadata": )" + std::string(75000, '[') + std::string(75000, ']') + "}";
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

}  // namespace
}  // namespace pc
