// RFC 8785 (JSON Canonicalization Scheme): the RFC's own examples and its number table. The
// expected strings were written by Node's Number.prototype.toString and by the RFC's reference
// canonicalizer (JSON.stringify with member names sorted by UTF-16 code units), not by this code.
#include "common/canonical_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/json_parse.h"

namespace pc {
namespace {

double DoubleOfBits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

nlohmann::json ParsedForJcs(const std::string& text) {
  Result<nlohmann::json> v = ParseJson(text);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : nlohmann::json();
}

TEST(CanonicalJson, NumbersAreWrittenAsEcmaScriptWritesThem) {
  // RFC 8785 Appendix B, then the edges of ECMAScript's four forms.
  const std::pair<uint64_t, const char*> table[] = {
      {0x0000000000000000ULL, "0"},
      {0x8000000000000000ULL, "0"},
      {0x0000000000000001ULL, "5e-324"},
      {0x8000000000000001ULL, "-5e-324"},
      {0x7fefffffffffffffULL, "1.7976931348623157e+308"},
      {0xffefffffffffffffULL, "-1.7976931348623157e+308"},
      {0x4340000000000000ULL, "9007199254740992"},
      {0xc340000000000000ULL, "-9007199254740992"},
      {0x4430000000000000ULL, "295147905179352830000"},
      {0x44b52d02c7e14af5ULL, "9.999999999999997e+22"},
      {0x44b52d02c7e14af6ULL, "1e+23"},
      {0x44b52d02c7e14af7ULL, "1.0000000000000001e+23"},
      {0x444b1ae4d6e2ef4eULL, "999999999999999700000"},
      {0x444b1ae4d6e2ef4fULL, "999999999999999900000"},
      {0x444b1ae4d6e2ef50ULL, "1e+21"},
      {0x3eb0c6f7a0b5ed8cULL, "9.999999999999997e-7"},
      {0x3eb0c6f7a0b5ed8dULL, "0.000001"},
      {0x41b3de4355555553ULL, "333333333.3333332"},
      {0x41b3de4355555554ULL, "333333333.33333325"},
      {0x41b3de4355555555ULL, "333333333.3333333"},
      {0x41b3de4355555556ULL, "333333333.3333334"},
      {0x41b3de4355555557ULL, "333333333.33333343"},
      {0xbecbf647612f3696ULL, "-0.0000033333333333333333"},
      {0x43143ff3c1cb0959ULL, "1424953923781206.2"},
      {0x4415af1d78b58c40ULL, "100000000000000000000"},
      {0x441ac53a7e04bcdaULL, "123456789012345680000"},
      {0x3e7ad7f29abcaf48ULL, "1e-7"},
      {0x3e8421f5f40d8376ULL, "1.5e-7"},
      {0x3eb4f8b588e368f1ULL, "0.00000125"},
      {0x4012000000000000ULL, "4.5"},
      {0x3f60624dd2f1a9fcULL, "0.002"},
      {0x3a53ce9a36f23c10ULL, "1e-27"},
      {0x46293e5939a08ceaULL, "1e+30"},
      {0xbff4000000000000ULL, "-1.25"},
      {0x4059000000000000ULL, "100"},
      {0x3fb999999999999aULL, "0.1"},
      {0x3fd5555555555555ULL, "0.3333333333333333"},
  };
  for (const auto& [bits, want] : table) {
    const double d = DoubleOfBits(bits);
    Result<std::string> got = EcmaNumber(d);
    ASSERT_TRUE(got.ok()) << std::hex << bits;
    EXPECT_EQ(*got, want) << std::hex << bits;
    // And as a member of a value.
    EXPECT_EQ(*CanonicalJson(nlohmann::json::array({d})), std::string("[") + want + "]");
  }
  EXPECT_FALSE(EcmaNumber(std::numeric_limits<double>::infinity()).ok());
  EXPECT_FALSE(EcmaNumber(std::nan("")).ok());
}

TEST(CanonicalJson, TheRfcsExampleCanonicalizesByteForByte) {
  // RFC 8785 section 3.2.2, the input as its text (escapes and all).
  const std::string input = R"({
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  })";
  EXPECT_EQ(*CanonicalJson(ParsedForJcs(input)),
            "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
            "\"string\":\"\xE2\x82\xAC$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

TEST(CanonicalJson, MembersAreSortedByUtf16CodeUnits) {
  // RFC 8785 section 3.2.3: the emoji (D83D DE00) sorts before U+FB33, unlike in UTF-8.
  const std::string input = R"({
    "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis"
  })";
  EXPECT_EQ(*CanonicalJson(ParsedForJcs(input)),
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xC2\x80\":\"Control\","
            "\"\xC3\xB6\":\"Latin Small Letter O With Diaeresis\",\"\xE2\x82\xAC\":\"Euro Sign\","
            "\"\xF0\x9F\x98\x80\":\"Emoji: Grinning Face\","
            "\"\xEF\xAC\xB3\":\"Hebrew Letter Dalet With Dagesh\"}");
}

TEST(CanonicalJson, OnlyQuotesBackslashesAndControlCharactersAreEscaped) {
  nlohmann::json v;
  v[std::string("a\0b", 3)] = "\b\f\t\x1f/";
  v["\x7f"] = "del";
  v["\xE2\x80\xA8"] = "ls";  // U+2028, as is
  v["a"] = "x\"y\\z\n\r";
  EXPECT_EQ(*CanonicalJson(v),
            "{\"a\":\"x\\\"y\\\\z\\n\\r\",\"a\\u0000b\":\"\\b\\f\\t\\u001f/\",\"\x7f\":\"del\","
            "\"\xE2\x80\xA8\":\"ls\"}");
}

TEST(CanonicalJson, IntegersAreDoublesAsJavaScriptReadsThem) {
  const int64_t max = int64_t{1} << 53;
  EXPECT_EQ(*CanonicalJson(nlohmann::json{{"n", max}, {"m", -max}, {"u", uint64_t{7}}}),
            "{\"m\":-9007199254740992,\"n\":9007199254740992,\"u\":7}");
  // Wider: the nearest double, as Node prints it (String(2**60 + 1), String(2**64 - 1)).
  EXPECT_EQ(*CanonicalJson(nlohmann::json((int64_t{1} << 60) + 1)), "1152921504606847000");
  EXPECT_EQ(*CanonicalJson(nlohmann::json(std::numeric_limits<uint64_t>::max())),
            "18446744073709552000");
  EXPECT_EQ(*CanonicalJson(nlohmann::json(std::numeric_limits<int64_t>::min())),
            "-9223372036854776000");
  // And the canonical text is its own canonical form, though it reads back as an integer.
  const std::string wide = *CanonicalJson(ParsedForJcs("[1152921504606846977, 1e19]"));
  EXPECT_EQ(wide, "[1152921504606847000,10000000000000000000]");
  EXPECT_EQ(*CanonicalJson(ParsedForJcs(wide)), wide);
}

TEST(CanonicalJson, WhatHasNoCanonicalFormIsRefused) {
  EXPECT_FALSE(CanonicalJson(nlohmann::json("\xFF")).ok());
  nlohmann::json bad_key;
  bad_key["\xC0\x80"] = 1;
  EXPECT_FALSE(CanonicalJson(bad_key).ok());
  EXPECT_FALSE(CanonicalJson(nlohmann::json::binary({1, 2})).ok());
  EXPECT_FALSE(
      CanonicalJson(nlohmann::json::array({std::numeric_limits<double>::infinity()})).ok());
  nlohmann::json deep = 1;
  for (int i = 0; i < kMaxJsonDepth + 2; ++i) deep = nlohmann::json::array({deep});
  EXPECT_FALSE(CanonicalJson(deep).ok());
}

TEST(CanonicalJson, TheDigestIsOfTheCanonicalBytes) {
  // Two spellings of one value, one digest; SHA-256 of "{\"a\":1,\"b\":[true,null]}".
  auto a = CanonicalJsonDigest(ParsedForJcs(R"({"b": [true, null], "a": 1.0})"));
  auto b = CanonicalJsonDigest(ParsedForJcs(R"({"a":1,"b":[true,null]})"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*a, "sha256:1cc69c7fa23616ca2ec3ee70d24390a6225c8832db8a4c814c7e0e7f942f8668");
}

}  // namespace
}  // namespace pc
