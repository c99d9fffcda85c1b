// The reconcile gate's candidate scoring (search/shared_terms.h): a shared rare term outweighs
// shared common ones, weights add up per document, and equals come newest first.
#include "search/shared_terms.h"

#include <gtest/gtest.h>

namespace pc {
namespace {

TEST(SharedTerms, RareTermsOutweighCommonOnesAndWeightsAddUp) {
  SharedTerms shared(1000);
  shared.AddTerm({1, 2, 3, 4, 5}, 900);  // common: ln(1 + 1000/900) ≈ 0.75 each
  shared.AddTerm({2, 3, 4, 5}, 800);     // common too
  shared.AddTerm({9}, 1);                // rare: ln(1001) ≈ 6.9
  shared.AddTerm({}, 0);                 // a term nobody has adds nothing
  EXPECT_EQ(shared.Best(10), (std::vector<int64_t>{9, 5, 4, 3, 2, 1}))
      << "the rare one first; then two common terms beat one; equals newest first";
  SharedTerms again(1000);
  again.AddTerm({1, 2, 3, 4, 5}, 900);
  again.AddTerm({2, 3, 4, 5}, 800);
  again.AddTerm({9}, 1);
  EXPECT_EQ(again.Best(2), (std::vector<int64_t>{9, 5}));
  EXPECT_TRUE(SharedTerms(0).Best(3).empty());
}

}  // namespace
}  // namespace pc
