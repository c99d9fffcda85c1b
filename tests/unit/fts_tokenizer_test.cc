// The shared tables' tokenizer run outside FTS5 (store/sqlite/fts_extensions.h: FtsTokenizer,
// used by the writer's kept gate reads) gives, for every row remembered, exactly the tokens FTS5
// indexed for it: the chain kSharedTextChain names is the one schema.cc's tables were created with.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "service/memory/memory_service.h"
#include "store/sqlite/db.h"
#include "store/sqlite/fts_extensions.h"
#include "store/sqlite/store_files.h"
#include "test_util.h"

namespace pc {
namespace {

TEST(FtsTokenizerTest, GivesTheTokensTheIndexHolds) {
  testing::Fixture f;
  if (!f.sqlite()) GTEST_SKIP() << "SQLite's shared full-text tables only";
  const std::string scope = f.NewScope("project:tokens");
  PC_ASSERT_OK(f.memory->SetSettings(scope, {{"reconcile", "off"}}));
  // Stemmed English, Chinese, mixed case, punctuation, identifiers, numbers and symbols.
  const std::vector<std::string> texts = {
      "Running importers rejected 3 rows nightly", "导入失败：表的行号不对，需要重新导入",
      "The ledger's currency (EUR→USD) was RE-CONCILED by parseJSON",
      "emoji 🚀 and café naïve snake_case a/b.c",
      "2026-12-05T10:00 v1.2.3 id=abc_def 合同测试 before migration"};
  for (const std::string& text : texts)
    PC_ASSERT_OK(f.memory->Remember({scope, "fact", text, "", "t"}));

  auto db = sqlite::Db::Open((std::filesystem::path(f.dir.path()) / sqlite::kDbFileName).string(),
                             10000, sqlite::OpenMode::kExisting);
  PC_ASSERT_OK(db);
  (*db)->KeepGateReads();
  sqlite::FtsTokenizer* tokenizer = (*db)->fts_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  PC_ASSERT_OK(
      (*db)->Exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, memory_fts, "
                  "instance)"));
  std::vector<std::pair<int64_t, std::string>> rows;
  {
    auto all = (*db)->Prepare("SELECT rowid, text FROM memory_fts");
    PC_ASSERT_OK(all);
    for (auto step = all->Step(); step.ok() && *step; step = all->Step())
      rows.emplace_back(all->Int(0), all->Text(1));
  }
  ASSERT_EQ(rows.size(), texts.size());
  for (const auto& [rowid, text] : rows) {
    std::vector<std::string> outside, indexed;
    PC_ASSERT_OK(tokenizer->Document(text, outside));
    auto terms = (*db)->Prepare("SELECT term FROM temp.vocab WHERE doc = ? AND col = 'text'");
    PC_ASSERT_OK(terms);
    terms->Bind(1, rowid);
    for (auto step = terms->Step(); step.ok() && *step; step = terms->Step())
      indexed.push_back(terms->Text(0));
    std::sort(outside.begin(), outside.end());
    std::sort(indexed.begin(), indexed.end());
    EXPECT_FALSE(indexed.empty()) << text;
    EXPECT_EQ(outside, indexed) << text;
  }
}

}  // namespace
}  // namespace pc
