#include "search/fusion.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace pc {

double CosineFromL2(double d) { return 1.0 - d * d / 2.0; }

float Dot(const float* a, const float* b, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

std::vector<FusedItem> FuseRrf(const std::vector<std::string>& first,
                               const std::vector<std::string>& second) {
  std::unordered_map<std::string, size_t> index;
  std::vector<FusedItem> items;
  std::vector<size_t> first_rank;
  auto take = [&](const std::vector<std::string>& list, bool is_first) {
    for (size_t r = 0; r < list.size(); ++r) {
      auto [it, added] = index.emplace(list[r], items.size());
      if (added) {
        items.push_back(FusedItem{list[r], 0, false, false});
        first_rank.push_back(std::numeric_limits<size_t>::max());
      }
      FusedItem& item = items[it->second];
      if ((is_first && item.in_first) || (!is_first && item.in_second)) continue;  // repeats count once
      item.score += 1.0 / (kRrfK + static_cast<double>(r + 1));
      if (is_first) {
        item.in_first = true;
        first_rank[it->second] = r;
      } else {
        item.in_second = true;
      }
    }
  };
  take(first, true);
  take(second, false);
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (items[a].score != items[b].score) return items[a].score > items[b].score;
    if (first_rank[a] != first_rank[b]) return first_rank[a] < first_rank[b];
    return items[a].id < items[b].id;
  });
  std::vector<FusedItem> out;
  out.reserve(items.size());
  for (size_t i : order) out.push_back(items[i]);
  return out;
}

}  // namespace pc
