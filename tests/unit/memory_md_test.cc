// Reading Markdown memory files into items (memory_md/memory_md.h): bullets with their
// continuation lines, table rows with their headers, kinds from section headings (English and
// Chinese), our citations and pointer-only index left out.
#include "memory_md/memory_md.h"

#include <gtest/gtest.h>

namespace pc {
namespace {

TEST(MemoryMdItems, BulletsTablesAndSections) {
  const std::string md = R"(# MEMORY

## Users
| handle | role | notes |
| --- | --- | --- |
| @orange | owner | reviews every migration |
| @kiwi | | on call |

## Decisions
- Store amounts as integer cents.
  Never as floating point.
  — cite: `memory/mem_x@3#ent_a@env_b`
* Ship on Tuesdays.

<!-- a comment
- not an item -->
## 约束
1. 金额不得为负数。
2) 每晚两点运行导入。

## Recent (last 5)
- 2026-03-09: moved the importer to Decimal.
Plain text is not an item.
)";
  std::vector<MemoryMdItem> items = MemoryMdItems(md, "fact");
  ASSERT_EQ(items.size(), 7u);
  EXPECT_EQ(items[0].kind, "fact");
  EXPECT_EQ(items[0].text, "handle: @orange; role: owner; notes: reviews every migration");
  EXPECT_EQ(items[1].text, "handle: @kiwi; notes: on call");
  EXPECT_EQ(items[2].kind, "decision");
  EXPECT_EQ(items[2].text, "Store amounts as integer cents.\nNever as floating point.");
  EXPECT_EQ(items[3].text, "Ship on Tuesdays.");
  EXPECT_EQ(items[4].kind, "constraint");
  EXPECT_EQ(items[4].text, "金额不得为负数。");
  EXPECT_EQ(items[5].text, "每晚两点运行导入。");
  EXPECT_EQ(items[6].kind, "working_note");
}

TEST(MemoryMdItems, OurTopicFilesKeepTheirKindAndOurIndexHasNoItems) {
  EXPECT_TRUE(
      MemoryMdItems(
          "# MEMORY\n\n<!-- powercontext:index scope=x revision=3: … -->\n\n- r3 fact: x\n", "fact")
          .empty());
  auto items = MemoryMdItems(
      "# user_setting\n\n<!-- powercontext: scope=x revision=3, 1 entries -->\n\n- Dark mode.\n"
      "  — cite: `memory/m@3#e@v`\n",
      "fact");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, "user_setting");  // not "fact", though the heading says "user"
}

// Issue 27 N3: a 5 MB bullet line overflowed the stack of std::regex; the scan is linear.
TEST(MemoryMdItems, AHugeBulletLineIsOneItem) {
  const std::string text(5000000, 'a');
  auto items = MemoryMdItems("# Decisions\n\n- " + text + "\n", "fact");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, "decision");
  EXPECT_EQ(items[0].text, text);
}

// What counts as a bullet, as the regex ` ?([-*+]|[0-9]+[.)])\s+(.*)` had it.
TEST(MemoryMdItems, BulletMarkers) {
  auto texts = [](const std::string& md) {
    std::vector<std::string> out;
    for (const MemoryMdItem& i : MemoryMdItems(md, "fact")) out.push_back(i.text);
    return out;
  };
  EXPECT_EQ(texts("- a\n* b\n+ c\n 12. d\n3) e\n-\t \tf\n"),
            (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
  EXPECT_TRUE(texts("-x\n1.x\n  - two spaces\n-\n- \n.1 x\nx. y\n").empty());
}

}  // namespace
}  // namespace pc
