// Pseudo-relevance feedback's term choice and in-pool scores (search/feedback.h): pure and
// deterministic.
#include "search/feedback.h"

#include <gtest/gtest.h>

namespace pc {
namespace {

TEST(Feedback, PicksTheBestHitsSharedWordsNotTheQueryNorEveryHitsWords) {
  TextQuery q = BuildTextQuery("cuisine");
  std::vector<FeedbackDoc> pool = {{"April 28, 2023: which cuisine? Sichuan peppers", 3.0},
                                   {"April 28, 2023: cuisine of Sichuan, hot peppers", 2.0},
                                   {"April 28, 2023: the weather", 0.5},
                                   {"April 28, 2023: a walk", 0.4}};
  FeedbackOptions o;
  o.docs = 2;
  o.terms = 2;
  Expansion e = Expand(q, pool, o);
  ASSERT_EQ(e.terms.size(), 2u);
  EXPECT_EQ(e.terms[0], "peppers");
  EXPECT_EQ(e.terms[1], "sichuan");
  // Each document's score is the summed weight of the expansion terms it holds: the first two hold
  // both, the weather and the walk neither.
  ASSERT_EQ(e.scores.size(), 4u);
  EXPECT_GT(e.scores[0], 0);
  EXPECT_DOUBLE_EQ(e.scores[0], e.scores[1]);
  EXPECT_EQ(e.scores[2], 0);
  EXPECT_EQ(e.scores[3], 0);
  Expansion again = Expand(q, pool, o);  // deterministic
  EXPECT_EQ(again.terms, e.terms);
  EXPECT_EQ(again.scores, e.scores);
  o.terms = 3;  // the third is "which", the best hit's alone: it now scores above the second
  Expansion three = Expand(q, pool, o);
  ASSERT_EQ(three.terms.size(), 3u);
  EXPECT_EQ(three.terms[2], "which");
  EXPECT_GT(three.scores[0], three.scores[1]);
}

TEST(Feedback, ChineseBigramsAndALongQueryIsNotExpanded) {
  FeedbackOptions o;
  o.docs = 1;
  o.terms = 1;
  std::vector<FeedbackDoc> pool = {{"我喜欢川菜", 1.0}, {"今天天气", 0.5}};
  Expansion e = Expand(BuildTextQuery("喜欢"), pool, o);
  ASSERT_EQ(e.terms.size(), 1u);
  EXPECT_EQ(e.terms[0].size(), 6u);  // a bigram: two CJK characters, never one
  o.max_query_phrases = 1;
  Expansion none = Expand(BuildTextQuery("spicy food tonight"), pool, o);
  EXPECT_TRUE(none.terms.empty());
  EXPECT_EQ(none.scores, std::vector<double>(2, 0.0));
}

TEST(Feedback, TopicTermsAreSortedAndDistinct) {
  std::vector<std::string> t = TopicTerms("peppers and Sichuan peppers, the spicy peppers", 2);
  EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
  EXPECT_EQ(std::count(t.begin(), t.end(), "peppers"), 1);
  EXPECT_EQ(std::count(t.begin(), t.end(), "the"), 0);  // a stop word
}

}  // namespace
}  // namespace pc
