#include "search/bm25.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pc {
namespace {

TEST(Bm25Test, Fts5IdfNeverZeroOrLess) {
  EXPECT_DOUBLE_EQ(Fts5Idf(100, 1), std::log(99.5 / 1.5));
  EXPECT_EQ(Fts5Idf(100, 50), 1e-6) << "in half the documents: ln(1) = 0, kept above zero";
  EXPECT_EQ(Fts5Idf(100, 90), 1e-6) << "in most documents: negative, kept above zero";
}

TEST(Bm25Test, PlusOneIdfAlwaysPositive) {
  EXPECT_DOUBLE_EQ(PlusOneIdf(100, 1), std::log(1 + 99.5 / 1.5));
  EXPECT_GT(PlusOneIdf(100, 100), 0);
  EXPECT_LT(PlusOneIdf(100, 100), PlusOneIdf(100, 1));
}

TEST(Bm25Test, AverageLengthOfAnEmptyIndexIsOne) {
  EXPECT_EQ(AverageLength(0, 0), 1.0);
  EXPECT_EQ(AverageLength(4, 0), 1.0);
  EXPECT_EQ(AverageLength(4, 10), 2.5);
}

TEST(Bm25Test, TermSaturatesAndLongDocumentsWeighLess) {
  const Bm25 bm25(10);
  EXPECT_EQ(bm25.LengthNorm(10), 1.2) << "a document of average length: k1";
  EXPECT_EQ(bm25.Term(1, 1, bm25.LengthNorm(10)), 1.0);
  EXPECT_LT(bm25.Term(1, 1000, bm25.LengthNorm(10)), 2.2) << "never past k1 + 1";
  EXPECT_GT(bm25.Term(1, 2, bm25.LengthNorm(5)), bm25.Term(1, 2, bm25.LengthNorm(50)));
  EXPECT_DOUBLE_EQ(bm25.Term(3, 1, bm25.LengthNorm(10)), 3.0) << "the weight multiplies";
}

TEST(Bm25Test, ParametersAreTheCallers) {
  const Bm25 flat(10, Bm25Params{2.0, 0.0});
  EXPECT_EQ(flat.LengthNorm(1), flat.LengthNorm(1000)) << "b = 0: length does not count";
  EXPECT_EQ(flat.Term(1, 1, flat.LengthNorm(1)), 1.0);
}

}  // namespace
}  // namespace pc
