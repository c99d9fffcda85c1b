#include "search/int8_code.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace pc::int8 {
namespace {

// Rounds half away from zero, as std::lround, but without a call per element (std::lround was
// half of loading a memory's vectors, see docs/benchmarks.md): q − trunc(q) is exact, so the
// comparison with 0.5 decides as lround does, and the loop vectorizes. Codes must not change: a
// saved graph's rows are compared byte for byte with the codes made at load.
float RoundHalfAway(float q) {
  const float t = std::trunc(q);
  return std::fabs(q - t) >= 0.5f ? t + std::copysign(1.0f, q) : t;
}

// The largest magnitude. Sixteen running maxima instead of one: the same result (max is order-free
// and std::max skips a NaN in either form), but not one long chain of dependent steps.
float MaxAbs(const float* v, size_t n) {
  float lanes[16] = {};
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (size_t j = 0; j < 16; ++j) lanes[j] = std::max(lanes[j], std::fabs(v[i + j]));
  float max = 0;
  for (float lane : lanes) max = std::max(max, lane);
  for (; i < n; ++i) max = std::max(max, std::fabs(v[i]));
  return max;
}

}  // namespace

float Quantize(const float* v, size_t n, int8_t* out) {
  const float max = MaxAbs(v, n);
  float scale = max > 0 ? max / 127.0f : 1.0f;
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(RoundHalfAway(v[i] / scale));
  return scale;
}

// Widened to 16 bits, multiplied and added in pairs into 32-bit sums (vpmaddwd), 32 or 16 codes
// a step where the CPU has AVX-512BW or AVX2 (this file is compiled for the machine's CPU, see
// CMakeLists.txt; left to itself the compiler multiplied and widened in separate steps).
int32_t Dot(const int8_t* a, const int8_t* b, size_t n) {
  size_t i = 0;
  int32_t s = 0;
#if defined(__AVX512BW__)
  __m512i acc = _mm512_setzero_si512();
  for (; i + 32 <= n; i += 32) {
    __m512i x = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
    __m512i y = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(x, y));
  }
  alignas(64) int32_t lanes[16];  // not _mm512_reduce_add_epi32: GCC 12 warns inside it
  _mm512_store_si512(lanes, acc);
  for (int32_t lane : lanes) s += lane;
#elif defined(__AVX2__)
  __m256i acc = _mm256_setzero_si256();
  for (; i + 16 <= n; i += 16) {
    __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    __m256i y = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, y));
  }
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  for (int32_t lane : lanes) s += lane;
#endif
  for (; i < n; ++i) s += static_cast<int16_t>(a[i]) * static_cast<int16_t>(b[i]);
  return s;
}

void PackRow(float scale, const int8_t* codes, size_t n, uint8_t* row) {
  std::memcpy(row, &scale, sizeof scale);
  std::memcpy(row + sizeof scale, codes, n);
}

void EncodeRow(const float* v, size_t n, uint8_t* row) {
  float scale = Quantize(v, n, reinterpret_cast<int8_t*>(row + sizeof(float)));
  std::memcpy(row, &scale, sizeof scale);
}

float RowDot(const uint8_t* a, const uint8_t* b, size_t n) {
  float sa, sb;
  std::memcpy(&sa, a, sizeof sa);
  std::memcpy(&sb, b, sizeof sb);
  const auto* ca = reinterpret_cast<const int8_t*>(a + sizeof(float));
  const auto* cb = reinterpret_cast<const int8_t*>(b + sizeof(float));
  return sa * sb * static_cast<float>(Dot(ca, cb, n));
}

}  // namespace pc::int8
