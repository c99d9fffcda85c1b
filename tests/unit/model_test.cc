#include <gtest/gtest.h>

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
}

TEST(Canonical, HashIncludesKind) {
  EXPECT_EQ(*ContentHash("fact", "a  b"), *ContentHash("fact", " a b "));
  EXPECT_NE(*ContentHash("fact", "a b"), *ContentHash("decision", "a b"));
  EXPECT_NE(*ContentHash("fact", "a b"), *ContentHash("fact", "a c"));
  EXPECT_EQ(ContentHash("fact", "x")->size(), 64u);
}

TEST(Canonical, Kinds) {
  for (const char* k : {"fact", "working_note", "a", "k9", "abcdefghijklmnopqrstuvwxyz012345"})
    EXPECT_TRUE(IsValidKind(k)) << k;
  for (const char* k : {"", "Fact", "9lives", "_x", "with-dash", "space d",
                        "abcdefghijklmnopqrstuvwxyz0123456", "事实"})
    EXPECT_FALSE(IsValidKind(k)) << k;
}

TEST(Citation, RoundTrip) {
  Citation c{{"memory", "mem_01M8NBY5Z4SVYWMZSJZTE254JF", 12}, "ent_01M8NBY5ZJ0B0EGH5Y3KTW4DW5",
             "env_01M8NBY5ZJBG2TCBZ43Q7CHJSR"};
  std::string s = FormatCitation(c);
  EXPECT_EQ(s,
            "memory/mem_01M8NBY5Z4SVYWMZSJZTE254JF@12#ent_01M8NBY5ZJ0B0EGH5Y3KTW4DW5"
            "@env_01M8NBY5ZJBG2TCBZ43Q7CHJSR");
  auto parsed = ParseCitation(s);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, c);
}

TEST(Citation, RejectsMalformed) {
  const std::string ok_ent = "ent_01M8NBY5ZJ0B0EGH5Y3KTW4DW5";
  const std::string ok_env = "env_01M8NBY5ZJBG2TCBZ43Q7CHJSR";
  const std::string ok_mem = "mem_01M8NBY5Z4SVYWMZSJZTE254JF";
  for (const std::string& s : {
           std::string(""), std::string("garbage"),
           "memory/" + ok_mem + "@0#" + ok_ent + "@" + ok_env,      // revision 0
           "memory/" + ok_mem + "@-1#" + ok_ent + "@" + ok_env,     // negative
           "memory/" + ok_mem + "@x#" + ok_ent + "@" + ok_env,      // not a number
           "memory/" + ok_mem + "@2#" + ok_env + "@" + ok_ent,      // ids swapped
           "handoff/" + ok_mem + "@2#" + ok_ent + "@" + ok_env,     // wrong family
           "memory/" + ok_mem + "@2" + ok_ent + "@" + ok_env,       // no '#'
           "memory/" + ok_mem + "@2#" + ok_ent,                     // no version
       }) {
    EXPECT_FALSE(ParseCitation(s).ok()) << s;
    EXPECT_EQ(ParseCitation(s).status().code(), Code::kInvalidArgument) << s;
  }
}

}  // namespace
}  // namespace pc
