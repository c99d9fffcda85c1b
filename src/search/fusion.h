// Vector admission and reciprocal rank fusion (DESIGN §4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pc {

inline constexpr double kRrfK = 60;  // reciprocal rank fusion constant, as the spec says

// Cosine similarity of two unit vectors from their L2 distance: cos = 1 - d²/2.
double CosineFromL2(double l2_distance);

// Dot product (the cosine of two unit vectors).
float Dot(const float* a, const float* b, size_t n);

// One ranked list's contribution: ids best first.
struct FusedItem {
  std::string id;
  double score = 0;
  bool in_first = false, in_second = false;
};

// RRF over any number of rankings (at most 32): `in` has bit i set when list i has the id.
struct FusedMany {
  std::string id;
  double score = 0;
  uint32_t in = 0;
};
std::vector<FusedMany> FuseRrfMany(const std::vector<std::vector<std::string>>& lists);

// Convex-combination fusion of a text ranking and a vector ranking (Bruch et al. 2023, "An
// Analysis of Fusion Functions for Hybrid Retrieval"): score = text / max(text) + weight x the
// similarity min-max normalized over the vector list (a list without a range: the cosine itself,
// clamped to [0, 1]; a vector-only id that adds nothing then is left out); a list without the id
// adds 0. Bit 0 of `in`:
// in the text list, bit 1: in the vector list. Ties by the better text rank, then by id.
std::vector<FusedMany> FuseConvex(const std::vector<std::pair<std::string, double>>& text,
                                  const std::vector<std::pair<std::string, double>>& vector,
                                  double weight);

// RRF over two rankings: score = Σ 1 / (k + rank), rank from 1. Ties are broken by the better
// rank in the first list, then by id, so the order is deterministic.
std::vector<FusedItem> FuseRrf(const std::vector<std::string>& first,
                               const std::vector<std::string>& second);

}  // namespace pc
