// int8 codes (search/int8_code.h): the vectorized dot product agrees with plain arithmetic at
// every length and at the codes' extremes, and a row encodes a vector closely enough to rank by.
#include "search/int8_code.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

// A saved graph's rows are compared byte for byte with the codes made when it is loaded, so the
// codes are exactly std::lround(v / scale): halves away from zero, just-below-halves down.
TEST(Int8Code, CodesRoundAsLroundDoes) {
  // The largest magnitude is 127, so the scale is 1 and each value is its own quotient.
  const std::vector<float> v = {127.0f,      0.5f,         -0.5f,       1.5f,    -2.5f,
                                0.49999997f, -0.49999997f, 126.5f,      -126.5f, 0.0f,
                                -0.0f,       2.4999998f,   -1.5000001f, 64.5f};
  std::vector<int8_t> codes(v.size());
  ASSERT_EQ(int8::Quantize(v.data(), v.size(), codes.data()), 1.0f);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(codes[i], std::lround(v[i])) << v[i];
  EXPECT_EQ(codes[1], 1);
  EXPECT_EQ(codes[2], -1);
  EXPECT_EQ(codes[4], -3);
  EXPECT_EQ(codes[5], 0);
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t dim = 1 + static_cast<size_t>(trial) * 7 % 400;
    std::vector<float> u = testing::RandomUnit(rng, dim);
    std::vector<int8_t> got(dim);
    const float scale = int8::Quantize(u.data(), dim, got.data());
    float max = 0;
    for (float x : u) max = std::max(max, std::fabs(x));
    ASSERT_EQ(scale, max / 127.0f) << trial;
    for (size_t i = 0; i < dim; ++i)
      ASSERT_EQ(got[i], std::lround(u[i] / scale)) << trial << " " << i;
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
