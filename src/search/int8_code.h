// Vectors as int8 codes with one scale per row (code × scale ≈ value): a quarter of the floats'
// memory and memory traffic. The exact scan's first pass (search/vector_index.h) and the
// approximate graph (search/ann_graph.h) use them; final scores are always from the floats.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pc::int8 {

// Writes v's codes to out (n of them) and returns the scale: the largest magnitude maps to ±127.
float Quantize(const float* v, size_t n, int8_t* out);

// The dot product of two code rows (the scales are the caller's).
int32_t Dot(const int8_t* a, const int8_t* b, size_t n);

// One row as the graph keeps it: the scale (a float, native byte order), then the n codes.
inline size_t RowBytes(size_t n) { return sizeof(float) + n; }
void EncodeRow(const float* v, size_t n, uint8_t* row);
// Builds a row from a scale and codes already computed (the same bytes EncodeRow writes).
void PackRow(float scale, const int8_t* codes, size_t n, uint8_t* row);
// ≈ the dot product of the two vectors the rows encode.
float RowDot(const uint8_t* a, const uint8_t* b, size_t n);

}  // namespace pc::int8
