// The terms an index holds (search/index_terms.h): FTS5's positions and lengths, for both stores.
#include "search/index_terms.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <regex>
#include <set>

#include "search/porter.h"
#include "search/text_query.h"
#include "store/sqlite/fts_extensions.h"

namespace pc {
namespace {

TEST(IndexTermsTest, ColocatedTokensShareTheirPosition) {
  const std::vector<Token> tokens = {
      {"snake_case", 0, 10, false}, {"snake", 0, 5, true}, {"case", 6, 10, false}, {"x", 11, 12}};
  DocumentTerms terms = DocumentTermsOf(tokens);
  EXPECT_EQ(terms.length, 3);
  EXPECT_EQ(terms.positions["snake_case"], std::vector<int>{0});
  EXPECT_EQ(terms.positions["snake"], std::vector<int>{0});
  EXPECT_EQ(terms.positions["case"], std::vector<int>{1});
  EXPECT_EQ(terms.positions["x"], std::vector<int>{2});
}

TEST(IndexTermsTest, LengthIsTheDocumentsPositionsWhateverTheText) {
  for (const char* text : {"", "   ", "合同测试 before migration", "parseJSON snake_case a/b.c",
                           "the the the", "迁移"}) {
    EXPECT_EQ(DocumentLength(text), DocumentTermsOf(Tokenize(text, TokenizeMode::kDocument)).length)
        << text;
  }
  EXPECT_EQ(DocumentLength(""), 0);
  EXPECT_EQ(DocumentLength("run the tests"), 3);
}

TEST(IndexTermsTest, PhraseTermsLeaveColocatedOnesOut) {
  const std::vector<Token> tokens = {{"a", 0, 1}, {"ab", 0, 2, true}, {"b", 1, 2}};
  EXPECT_EQ(PhraseTermsOf(tokens), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(PhraseTermsOf({{"x", 0, 1, true}}), std::vector<std::string>{"x"})
      << "a first colocated token starts the phrase";
}

// FTS5's own "porter pc" chain on an in-memory SQLite connection: what the SQLite store indexes,
// the reference the chain in search/ must equal.
class Fts5Chain {
 public:
  Fts5Chain() {
    EXPECT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    EXPECT_TRUE(sqlite::RegisterFtsExtensions(db_).ok());
    fts5_api* api = nullptr;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, "SELECT fts5(?1)", -1, &st, nullptr), SQLITE_OK);
    sqlite3_bind_pointer(st, 1, &api, "fts5_api_ptr", nullptr);
    sqlite3_step(st);
    sqlite3_finalize(st);
    void* context = nullptr;
    EXPECT_EQ(api->xFindTokenizer(api, "porter", &context, &tokenizer_), SQLITE_OK);
    const char* args[] = {"pc"};
    EXPECT_EQ(tokenizer_.xCreate(context, args, 1, &instance_), SQLITE_OK);
  }
  ~Fts5Chain() {
    tokenizer_.xDelete(instance_);
    sqlite3_close(db_);
  }
  // Each token as "text" or "+text" (colocated).
  std::vector<std::string> Tokens(const std::string& text, TokenizeMode mode) {
    std::vector<std::string> out;
    const int flags = mode == TokenizeMode::kQuery ? FTS5_TOKENIZE_QUERY : FTS5_TOKENIZE_DOCUMENT;
    tokenizer_.xTokenize(instance_, &out, flags, text.data(), static_cast<int>(text.size()),
                         [](void* ctx, int tflags, const char* t, int n, int, int) {
                           static_cast<std::vector<std::string>*>(ctx)->push_back(
                               ((tflags & FTS5_TOKEN_COLOCATED) ? "+" : "") +
                               std::string(t, static_cast<size_t>(n)));
                           return SQLITE_OK;
                         });
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
  fts5_tokenizer tokenizer_{};
  Fts5Tokenizer* instance_ = nullptr;
};

std::vector<std::string> Ours(const std::string& text, TokenizeMode mode) {
  std::vector<std::string> out;
  for (const Token& t : ChainTokens(text, mode)) out.push_back((t.colocated ? "+" : "") + t.text);
  return out;
}

TEST(IndexTermsTest, TheChainIsFts5sPorterOverPc) {
  std::vector<std::string> texts = {
      "Run contract tests after the migration; it relates to generalizations and hopefulness.",
      "The conditional ratings were adjusted: agreed, feeding, hopping, filing, happy, sky.",
      "caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated",
      "troubled sized hopping tanned falling hissing fizzed failing filing happy sky",
      "relational conditional rational valenci hesitanci digitizer conformabli radicalli",
      "differentli vileli analogousli vietnamization predication operator feudalism",
      "decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate",
      "formative formalize electriciti electrical hopeful goodness revival allowance",
      "inference airliner gyroscopic adjustable defensible irritant replacement adjustment",
      "dependent adoption homologou communism activate angulariti homologous effective",
      "bowdlerize probate rate cease controll roll generalizations oscillators",
      "snake_case camelCase HTTPServer parseJSON v1.2.3 src/api/json_codec.cc 2026-12-03",
      "合同测试 before migration 订单导入器 の テスト 한국어 emoji 🙂 "
      "ＦＵＬＬ－ｗｉｄｔｈ",
      std::string(70, 'a') + "tional " + std::string(58, 'b') + "ations"};
  std::ifstream golden(std::string(PC_SOURCE_DIR) + "/tests/golden/tokenizer.test");
  const std::regex input(R"re(^tokenize (doc|query) "(.*)"$)re");
  std::smatch m;
  for (std::string line; std::getline(golden, line);)
    if (std::regex_match(line, m, input)) texts.push_back(m[2]);
  ASSERT_GT(texts.size(), 20u);
  Fts5Chain fts5;
  for (const std::string& text : texts)
    for (TokenizeMode mode : {TokenizeMode::kDocument, TokenizeMode::kQuery})
      EXPECT_EQ(Ours(text, mode), fts5.Tokens(text, mode)) << text;
}

TEST(IndexTermsTest, PorterStemsAsPorterDoes) {
  EXPECT_EQ(PorterStem("caresses"), "caress");
  EXPECT_EQ(PorterStem("ponies"), "poni");
  EXPECT_EQ(PorterStem("hopping"), "hop");
  EXPECT_EQ(PorterStem("filing"), "file");
  EXPECT_EQ(PorterStem("generalizations"), "gener");
  EXPECT_EQ(PorterStem("adoption"), "adopt");
  EXPECT_EQ(PorterStem("is"), "is") << "shorter than 3 bytes: unchanged";
  EXPECT_EQ(PorterStem(std::string(65, 'a') + "s"), std::string(65, 'a') + "s")
      << "longer than 64 bytes: unchanged";
}

// A request's query analyzed once (search/text_query.h): its full-text query is BuildTextQuery's,
// and its ranking terms leave out stop words and CJK function characters, each term once.
TEST(AnalyzeQueryTest, OneAnalysisForEveryChannel) {
  const std::string q = "Deploy the deploy 迁移的回滚";
  const AnalyzedQuery a = AnalyzeQuery(q);
  EXPECT_EQ(a.text.phrases, BuildTextQuery(q).phrases);
  std::set<std::string> terms(a.terms.begin(), a.terms.end());
  EXPECT_EQ(terms.size(), a.terms.size()) << "each term once";
  EXPECT_TRUE(terms.count("deploy"));
  EXPECT_FALSE(terms.count("the"));
  EXPECT_FALSE(terms.count("的"));
  EXPECT_TRUE(terms.count("迁"));
  EXPECT_TRUE(AnalyzeQuery("the of and").terms.empty());
}

// A number and its English ordinal find each other: the query searches both spellings, once each;
// other words, and numbers of more than 3 digits (a year), only as written.
TEST(BuildTextQueryTest, ANumberAlsoSearchesItsOrdinalAndBack) {
  using Phrases = std::vector<std::string>;
  EXPECT_EQ(BuildTextQuery("On May 4th").phrases, (Phrases{"may", "4th", "4"}));
  EXPECT_EQ(BuildTextQuery("floor 3").phrases, (Phrases{"floor", "3", "3rd"}));
  EXPECT_EQ(BuildTextQuery("1 2 11 12 13 21 22 23 101 111").phrases,
            (Phrases{"1",  "1st",  "2",  "2nd",  "11", "11th", "12",  "12th",  "13",  "13th",
                     "21", "21st", "22", "22nd", "23", "23rd", "101", "101st", "111", "111th"}));
  EXPECT_EQ(BuildTextQuery("4 4th").phrases, (Phrases{"4", "4th"})) << "each once";
  EXPECT_EQ(BuildTextQuery("2023 1000th 4x nth").phrases, (Phrases{"2023", "1000th", "4x", "nth"}));
}

}  // namespace
}  // namespace pc
