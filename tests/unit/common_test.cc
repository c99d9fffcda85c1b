#include <gtest/gtest.h>

#include <set>

#include "common/clock.h"
#include "common/ids.h"
#include "common/sha256.h"
#include "common/utf8.h"

namespace pc {
namespace {

TEST(Ids, WellFormedUniqueAndMonotonic) {
  std::set<std::string> seen;
  std::string previous;
  for (int i = 0; i < 1000; ++i) {
    std::string id = NewId(kEntryPrefix);
    EXPECT_TRUE(IsWellFormedId(id, kEntryPrefix)) << id;
    EXPECT_TRUE(seen.insert(id).second) << "duplicate id " << id;
    EXPECT_GT(id, previous) << "ids from one process sort in creation order";
    previous = id;
  }
}

TEST(Ids, RejectsMalformed) {
  EXPECT_FALSE(IsWellFormedId("ent_", kEntryPrefix));
  EXPECT_FALSE(IsWellFormedId("env_01M8NBY5ZJBG2TCBZ43Q7CHJSR", kEntryPrefix));
  EXPECT_FALSE(
      IsWellFormedId("ent_01M8NBY5ZJBG2TCBZ43Q7CHJSI", kEntryPrefix));  // I is not Crockford
  EXPECT_FALSE(IsWellFormedId("ent_01m8nby5zjbg2tcbz43q7chjsr", kEntryPrefix));
  EXPECT_TRUE(IsWellFormedId("ent_01M8NBY5ZJBG2TCBZ43Q7CHJSR", kEntryPrefix));
}

TEST(Utf8, Validation) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("订单导入器 ✓ 🚀"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // UTF-16 surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("abc\xe4\xb8"));       // truncated
}

TEST(Utf8, PrefixNeverCutsACharacter) {
  std::string s = "订单a";  // 3 + 3 + 1 bytes
  EXPECT_EQ(Utf8Prefix(s, 0), "");
  EXPECT_EQ(Utf8Prefix(s, 2), "");
  EXPECT_EQ(Utf8Prefix(s, 3), "订");
  EXPECT_EQ(Utf8Prefix(s, 5), "订");
  EXPECT_EQ(Utf8Prefix(s, 6), "订单");
  EXPECT_EQ(Utf8Prefix(s, 7), s);
  EXPECT_EQ(Utf8Prefix(s, 100), s);
}

TEST(Utf8, Nfkc) {
  EXPECT_EQ(*NormalizeNfkc("ＡＢＣ１２３"), "ABC123");
  EXPECT_EQ(*NormalizeNfkc("ﬁ"), "fi");
  EXPECT_EQ(*NormalizeNfkcCasefold("Straße ÄB"), "strasse äb");
  EXPECT_FALSE(NormalizeNfkc("\xff").ok());
}

TEST(Sha256, KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace pc

namespace pc {
namespace {

// Times as other programs write them (hosts' transcripts, pruning requests).
TEST(ParseRfc3339, AcceptsFractionsAndOffsetsAndRefusesTheRest) {
  const int64_t base = *ParseTimestamp("2026-12-01T10:00:00.000Z");
  EXPECT_EQ(ParseRfc3339("2026-12-01T10:00:00Z"), base);
  EXPECT_EQ(ParseRfc3339("2026-12-01T10:00:00.5Z"), base + 500);
  EXPECT_EQ(ParseRfc3339("2026-12-01T10:00:00.123456Z"), base + 123);
  EXPECT_EQ(ParseRfc3339("2026-12-01T18:00:00+08:00"), base);
  EXPECT_EQ(ParseRfc3339("2026-12-01T05:30:00-04:30"), base);
  for (const char* bad : {"2026-12-01T10:00:00", "2026-12-01 10:00:00Z", "2026-12-01T10:00:00.Z",
                          "2026-12-01T10:00:00+0800", "yesterday", "", "2026-12-01T10:00:00Zjunk"})
    EXPECT_FALSE(ParseRfc3339(bad).has_value()) << bad;
}

}  // namespace
}  // namespace pc
