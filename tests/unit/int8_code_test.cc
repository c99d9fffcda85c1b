// int8 codes (search/int8_code.h): the vectorized dot product agrees with plain arithmetic at
// every length and at the codes' extremes, and a row encodes a vector closely enough to rank by.
#include "search/int8_code.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "random_unit.h"

namespace pc {
namespace {

TEST(Int8Code, TheDotProductIsExactAtEveryLengthAndAtTheExtremes) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> code(-128, 127);
  // Lengths around the 16- and 32-code steps, so the vector loop's remainder is exercised too.
  for (size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 384, 385, 1536}) {
    std::vector<int8_t> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = static_cast<int8_t>(code(rng));
      b[i] = static_cast<int8_t>(code(rng));
    }
    int64_t want = 0;
    for (size_t i = 0; i < n; ++i) want += int64_t{a[i]} * b[i];
    EXPECT_EQ(int8::Dot(a.data(), b.data(), n), want) << n;
    std::vector<int8_t> low(n, -128);  // the largest products, all of one sign
    EXPECT_EQ(int8::Dot(low.data(), low.data(), n), static_cast<int64_t>(n) * 16384) << n;
  }
}

TEST(Int8Code, ARowKeepsTheDotProductOfUnitVectorsClose) {
  std::mt19937 rng(5);
  const size_t dim = 384;
  auto unit = [&] { return testing::RandomUnit(rng, dim); };
  std::vector<uint8_t> ra(int8::RowBytes(dim)), rb(int8::RowBytes(dim));
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<float> a = unit(), b = unit();
    double exact = 0;
    for (size_t i = 0; i < dim; ++i) exact += a[i] * b[i];
    int8::EncodeRow(a.data(), dim, ra.data());
    int8::EncodeRow(b.data(), dim, rb.data());
    EXPECT_NEAR(int8::RowDot(ra.data(), rb.data(), dim), exact, 0.01);
    EXPECT_NEAR(int8::RowDot(ra.data(), ra.data(), dim), 1.0, 0.01);
  }
  // A zero vector encodes (scale 1, all codes 0) and is orthogonal to everything.
  std::vector<float> zero(dim, 0.0f);
  int8::EncodeRow(zero.data(), dim, ra.data());
  EXPECT_EQ(int8::RowDot(ra.data(), rb.data(), dim), 0.0f);
}

}  // namespace
}  // namespace pc
