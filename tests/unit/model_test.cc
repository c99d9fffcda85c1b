// The model's pure rules: canonical content (invariant 4), kinds, and the citation's string form.
// Restored from 2af493b (a later commit emptied this file) with the spec's rules of today: a kind
// is 1-128 characters, not blank, no control characters.
#include <gtest/gtest.h>

#include <string>

#include "model/canonical.h"
#include "model/citation.h"

namespace pc {
namespace {

TEST(Canonical, FoldsWhiteSpaceAndNormalizes) {
  EXPECT_EQ(*CanonicalText("  Run   tests\tafter\n\nmigration  "), "Run tests after migration");
  EXPECT_EQ(*CanonicalText("ｕｓｅ　ＰＧ"), "use PG");  // full-width letters and U+3000 space
  EXPECT_EQ(*CanonicalText("\u00a0x\u2028y\u2003"), "x y");
  EXPECT_EQ(*CanonicalText("   "), "");
  EXPECT_EQ(*CanonicalText("Case Kept"), "Case Kept");
  EXPECT_EQ(*CanonicalText("订单金额　以分为单位。"), "订单金额 以分为单位。");
}

TEST(Canonical, RefusesTextThatIsNotUtf8) {
  EXPECT_FALSE(CanonicalText(std::string("ok \xff\xfe", 5)).ok());
  EXPECT_FALSE(ContentHash("fact", std::string("\xc3", 1)).ok());
}

TEST(Canonical, HashIncludesKind) {
  EXPECT_EQ(*ContentHash("fact", "a  b"), *ContentHash("fact", " a b "));
  EXPECT_EQ(*ContentHash("fact", "ａ b"), *ContentHash("fact", "a b"));
  EXPECT_NE(*ContentHash("fact", "a b"), *ContentHash("decision", "a b"));
  EXPECT_NE(*ContentHash("fact", "a b"), *ContentHash("fact", "a c"));
  EXPECT_NE(*ContentHash("fact", "a b"), *ContentHash("fact", "A b"));
  EXPECT_EQ(ContentHash("fact", "x")->size(), 64u);
}

TEST(Canonical, Kinds) {
  for (const std::string& k : {std::string("fact"), std::string("working_note"), std::string("a"),
                               std::string("Fact"), std::string("9lives"), std::string("with-dash"),
                               std::string("space d"), std::string("事实"), std::string(128, 'k')})
    EXPECT_TRUE(IsValidKind(k)) << k;
  for (const std::string& k : {std::string(""), std::string("   "), std::string(129, 'k'),
                               std::string("tab\there"), std::string("new\nline")})
    EXPECT_FALSE(IsValidKind(k)) << k;
}

TEST(Citation, RoundTrip) {
  Citation c{{"memory", "mem_01M8NBY5Z4SVYWMZSJZTE254JF", 12},
             "ent_01M8NBY5ZJ0B0EGH5Y3KTW4DW5",
             "env_01M8NBY5ZJBG2TCBZ43Q7CHJSR"};
  std::string s = FormatCitation(c);
  EXPECT_EQ(s,
            "memory/mem_01M8NBY5Z4SVYWMZSJZTE254JF@12#ent_01M8NBY5ZJ0B0EGH5Y3KTW4DW5"
            "@env_01M8NBY5ZJBG2TCBZ43Q7CHJSR");
  auto parsed = ParseCitation(s);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, c);
  EXPECT_TRUE(ValidateCitation(c).ok());
  EXPECT_EQ(
      CitationJson(c),
      "{\"memory_ref\":{\"family\":\"memory\",\"artifact_id\":\"mem_01M8NBY5Z4SVYWMZSJZTE254JF\","
      "\"revision\":12},\"entry_id\":\"ent_01M8NBY5ZJ0B0EGH5Y3KTW4DW5\","
      "\"entry_version_id\":\"env_01M8NBY5ZJBG2TCBZ43Q7CHJSR\"}");
}

TEST(Citation, RejectsMalformed) {
  const std::string ok_ent = "ent_01M8NBY5ZJ0B0EGH5Y3KTW4DW5";
  const std::string ok_env = "env_01M8NBY5ZJBG2TCBZ43Q7CHJSR";
  const std::string ok_mem = "mem_01M8NBY5Z4SVYWMZSJZTE254JF";
  for (const std::string& s : {
           std::string(""), std::string("garbage"),
           "memory/" + ok_mem + "@0#" + ok_ent + "@" + ok_env,   // revision 0
           "memory/" + ok_mem + "@-1#" + ok_ent + "@" + ok_env,  // negative
           "memory/" + ok_mem + "@x#" + ok_ent + "@" + ok_env,   // not a number
           "memory/" + ok_mem + "@2#" + ok_env + "@" + ok_ent,   // ids swapped
           "handoff/" + ok_mem + "@2#" + ok_ent + "@" + ok_env,  // wrong family
           "memory/" + ok_mem + "@2" + ok_ent + "@" + ok_env,    // no '#'
           "memory/" + ok_mem + "@2#" + ok_ent,                  // no version
       }) {
    EXPECT_FALSE(ParseCitation(s).ok()) << s;
    EXPECT_EQ(ParseCitation(s).status().code(), Code::kInvalidArgument) << s;
  }
  Citation object{{"memory", ok_mem, 0}, ok_ent, ok_env};
  EXPECT_EQ(ValidateCitation(object).code(), Code::kInvalidArgument);  // revision 0
  object.memory.revision = 3;
  object.entry_id = ok_env;
  EXPECT_EQ(ValidateCitation(object).code(),
            Code::kInvalidArgument);  // an entry version as the entry
}

TEST(Citation, QuoteJsonEscapesEveryControlCharacter) {
  EXPECT_EQ(QuoteJson("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(QuoteJson(std::string("\n\t\x01\x1f", 4)), "\"\\n\\t\\u0001\\u001f\"");
  EXPECT_EQ(QuoteJson("订单"), "\"订单\"");
}

}  // namespace
}  // namespace pc
