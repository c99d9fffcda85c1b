#include "search/vector_index.h"

#include <algorithm>
#include <cstring>

namespace pc {
namespace {

// Eight independent sums let the compiler vectorize without -ffast-math.
float DotUnrolled(const float* a, const float* b, size_t n) {
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (size_t j = 0; j < 8; ++j) s[j] += a[i + j] * b[i + j];
  float total = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  for (; i < n; ++i) total += a[i] * b[i];
  return total;
}

}  // namespace

void VectorIndex::Upsert(const std::string& entry_id, const std::string& version_id, bool active,
                         const float* vector) {
  auto it = slot_.find(entry_id);
  size_t row;
  if (it == slot_.end()) {
    row = entry_ids_.size();
    slot_[entry_id] = row;
    entry_ids_.push_back(entry_id);
    version_ids_.push_back(version_id);
    active_.push_back(active ? 1 : 0);
    data_.resize(data_.size() + dim_);
  } else {
    row = it->second;
    version_ids_[row] = version_id;
    active_[row] = active ? 1 : 0;
  }
  std::memcpy(&data_[row * dim_], vector, dim_ * sizeof(float));
}

void VectorIndex::Remove(const std::string& entry_id) {
  auto it = slot_.find(entry_id);
  if (it == slot_.end()) return;
  size_t row = it->second, last = entry_ids_.size() - 1;
  if (row != last) {  // move the last row into the hole
    std::memcpy(&data_[row * dim_], &data_[last * dim_], dim_ * sizeof(float));
    entry_ids_[row] = std::move(entry_ids_[last]);
    version_ids_[row] = std::move(version_ids_[last]);
    active_[row] = active_[last];
    slot_[entry_ids_[row]] = row;
  }
  slot_.erase(it);
  entry_ids_.pop_back();
  version_ids_.pop_back();
  active_.pop_back();
  data_.resize(data_.size() - dim_);
}

std::vector<VectorIndex::Hit> VectorIndex::Nearest(const std::vector<float>& query,
                                                   bool include_inactive, double min_similarity,
                                                   size_t k) const {
  std::vector<std::pair<float, size_t>> scored;
  if (query.size() != dim_) return {};
  for (size_t row = 0; row < entry_ids_.size(); ++row) {
    if (!include_inactive && !active_[row]) continue;
    float sim = DotUnrolled(query.data(), &data_[row * dim_], dim_);
    if (sim >= min_similarity) scored.push_back({sim, row});
  }
  size_t keep = std::min(k, scored.size());
  auto better = [&](const std::pair<float, size_t>& a, const std::pair<float, size_t>& b) {
    if (a.first != b.first) return a.first > b.first;
    return version_ids_[a.second] < version_ids_[b.second];
  };
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep), scored.end(), better);
  std::vector<Hit> out;
  for (size_t i = 0; i < keep; ++i) {
    size_t row = scored[i].second;
    out.push_back(Hit{version_ids_[row], active_[row] != 0, scored[i].first});
  }
  return out;
}

}  // namespace pc
