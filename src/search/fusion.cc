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

std::vector<FusedMany> FuseRrfMany(const std::vector<std::vector<std::string>>& lists) {
  std::unordered_map<std::string, size_t> index;
  std::vector<FusedMany> items;
  std::vector<size_t> first_rank;
  for (size_t l = 0; l < lists.size() && l < 32; ++l) {
    const uint32_t bit = 1u << l;
    for (size_t r = 0; r < lists[l].size(); ++r) {
      auto [it, added] = index.emplace(lists[l][r], items.size());
      if (added) {
        items.push_back(FusedMany{lists[l][r], 0, 0});
        first_rank.push_back(std::numeric_limits<size_t>::max());
      }
      FusedMany& item = items[it->second];
      if (item.in & bit) continue;  // repeats count once
      item.score += 1.0 / (kRrfK + static_cast<double>(r + 1));
      item.in |= bit;
      if (l == 0) first_rank[it->second] = r;
    }
  }
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (items[a].score != items[b].score) return items[a].score > items[b].score;
    if (first_rank[a] != first_rank[b]) return first_rank[a] < first_rank[b];
    return items[a].id < items[b].id;
  });
  std::vector<FusedMany> out;
  out.reserve(items.size());
  for (size_t i : order) out.push_back(std::move(items[i]));
  return out;
}

std::vector<FusedItem> FuseRrf(const std::vector<std::string>& first,
                               const std::vector<std::string>& second) {
  std::vector<FusedItem> out;
  for (FusedMany& f : FuseRrfMany({first, second}))
    out.push_back(FusedItem{std::move(f.id), f.score, (f.in & 1u) != 0, (f.in & 2u) != 0});
  return out;
}

std::vector<FusedMany> FuseConvex(const std::vector<std::pair<std::string, double>>& text,
                                  const std::vector<std::pair<std::string, double>>& vector,
                                  double weight) {
  std::unordered_map<std::string, size_t> index;
  std::vector<FusedMany> items;
  std::vector<size_t> text_rank;
  auto slot = [&](const std::string& id) -> size_t {
    auto [it, added] = index.emplace(id, items.size());
    if (added) {
      items.push_back(FusedMany{id, 0, 0});
      text_rank.push_back(std::numeric_limits<size_t>::max());
    }
    return it->second;
  };
  double top = 0;
  for (const auto& [id, score] : text) top = std::max(top, score);
  for (size_t r = 0; r < text.size(); ++r) {
    size_t i = slot(text[r].first);
    if (items[i].in & 1u) continue;  // repeats count once
    items[i].score += top > 0 ? std::max(0.0, text[r].second) / top : 0.0;
    items[i].in |= 1u;
    text_rank[i] = r;
  }
  double lo = 0, hi = 0;
  for (size_t r = 0; r < vector.size(); ++r) {
    lo = r == 0 ? vector[r].second : std::min(lo, vector[r].second);
    hi = r == 0 ? vector[r].second : std::max(hi, vector[r].second);
  }
  for (const auto& [id, sim] : vector) {
    // Min-max over the list; a list of one similarity (or all equal) has no range, so its cosine
    // counts as it is: a lone weak hit must not weigh as much as the best full-text hit, and a
    // query whose vector is zero (no word the model knows) adds nothing — not even hits.
    const double part = hi > lo ? (sim - lo) / (hi - lo) : std::clamp(sim, 0.0, 1.0);
    if (!(hi > lo) && part <= 0 && !index.count(id)) continue;
    size_t i = slot(id);
    if (items[i].in & 2u) continue;
    items[i].score += weight * part;
    items[i].in |= 2u;
  }
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (items[a].score != items[b].score) return items[a].score > items[b].score;
    if (text_rank[a] != text_rank[b]) return text_rank[a] < text_rank[b];
    return items[a].id < items[b].id;
  });
  std::vector<FusedMany> out;
  out.reserve(items.size());
  for (size_t i : order) out.push_back(std::move(items[i]));
  return out;
}

}  // namespace pc
