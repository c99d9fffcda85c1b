// Pseudo-relevance feedback's term choice (search/feedback.h): pure and deterministic.
#include "search/feedback.h"

#include <gtest/gtest.h>

namespace pc {
namespace {

TEST(FeedbackTerms, PicksTheBestHitsSharedWordsNotTheQueryNorEveryHitsWords) {
  TextQuery q = BuildTextQuery("cuisine");
  std::vector<FeedbackDoc> pool = {{"April 28, 2023: which cuisine? Sichuan peppers", 3.0},
                                   {"April 28, 2023: cuisine of Sichuan, hot peppers", 2.0},
                                   {"April 28, 2023: the weather", 0.5},
                                   {"April 28, 2023: a walk", 0.4}};
  FeedbackOptions o;
  o.docs = 2;
  o.terms = 2;
  std::vector<std::string> terms = FeedbackTerms(q, pool, o);
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[0], "peppers");
  EXPECT_EQ(terms[1], "sichuan");
  EXPECT_EQ(FeedbackTerms(q, pool, o), terms);  // deterministic
}

TEST(FeedbackTerms, ChineseBigramsAndALongQueryIsNotExpanded) {
  FeedbackOptions o;
  o.docs = 1;
  o.terms = 1;
  std::vector<FeedbackDoc> pool = {{"我喜欢川菜", 1.0}, {"今天天气", 0.5}};
  std::vector<std::string> terms = FeedbackTerms(BuildTextQuery("喜欢"), pool, o);
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].size(), 6u);  // a bigram: two CJK characters, never one
  o.max_query_phrases = 1;
  EXPECT_TRUE(FeedbackTerms(BuildTextQuery("spicy food tonight"), pool, o).empty());
}

}  // namespace
}  // namespace pc
