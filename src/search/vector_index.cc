#include "search/vector_index.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "search/int8_code.h"

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

// The int8 scan keeps this many candidates per result before the exact float re-score.
constexpr size_t kCandidatesPerResult = 8;

// Asks the kernel to back a large buffer with 2 MB pages where it can (transparent huge pages in
// `madvise` mode, Debian's default): a million rows touch 1.9 GB for the first time as they load,
// and a fault per 4 KB page was a third of the load (docs/benchmarks.md).
template <typename T>
void PreferHugePages(const std::vector<T>& buffer) {
#ifdef MADV_HUGEPAGE
  const size_t page = 4096, bytes = buffer.capacity() * sizeof(T);
  if (bytes < (size_t{4} << 20)) return;
  const auto begin = (reinterpret_cast<uintptr_t>(buffer.data()) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<uintptr_t>(buffer.data()) + bytes) & ~(page - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)buffer;
#endif
}

}  // namespace

void VectorIndex::Reserve(size_t rows) {
  data_.reserve(rows * dim_);
  codes_.reserve(rows * dim_);
  PreferHugePages(data_);
  PreferHugePages(codes_);
  scales_.reserve(rows);
  version_ids_.reserve(rows);
  state_.reserve(rows);
  in_graph_.reserve(rows);
  row_label_.reserve(rows);
  slot_.reserve(rows);
}

void VectorIndex::Upsert(const std::string& entry_id, const std::string& version_id, bool active,
                         const float* vector) {
  auto [it, added] = slot_.try_emplace(entry_id, version_ids_.size());
  const size_t row = it->second;
  if (added) {  // appended as they are, not zero-filled first (a load appends every row)
    if (data_.size() + dim_ > data_.capacity()) Reserve(std::max<size_t>(2 * row, 16));
    version_ids_.push_back(version_id);
    state_.push_back(active ? kActive : kInactive);
    data_.insert(data_.end(), vector, vector + dim_);
    codes_.resize(codes_.size() + dim_);
    scales_.push_back(int8::Quantize(vector, dim_, &codes_[row * dim_]));
    in_graph_.push_back(0);
    row_label_.push_back(0);
    if (graph_) tail_.push_back(row);
    return;
  }
  LeaveGraph(row);
  version_ids_[row] = version_id;
  state_[row] = active ? kActive : kInactive;
  std::memcpy(&data_[row * dim_], vector, dim_ * sizeof(float));
  scales_[row] = int8::Quantize(vector, dim_, &codes_[row * dim_]);
}

void VectorIndex::Remove(const std::string& entry_id) {
  auto it = slot_.find(entry_id);
  if (it == slot_.end()) return;
  LeaveGraph(it->second);
  state_[it->second] = kRemoved;  // the row stays (rows never move: graph labels point at them)
  version_ids_[it->second].clear();
  slot_.erase(it);
}

void VectorIndex::LeaveGraph(size_t row) {
  if (!in_graph_[row]) return;
  graph_->MarkStale(row_label_[row]);
  in_graph_[row] = 0;
  tail_.push_back(row);
}

size_t VectorIndex::tail_size() const { return graph_ ? tail_.size() : 0; }

VectorIndex::Snapshot VectorIndex::TakeSnapshot() const {
  Snapshot snap;
  const size_t bytes = int8::RowBytes(dim_);
  const auto active = static_cast<size_t>(std::count(state_.begin(), state_.end(), kActive));
  snap.rows.reserve(active * bytes);  // 388 MB for 1M 384-d vectors: grown once, not by doubling
  snap.members.reserve(active);
  for (size_t row = 0; row < state_.size(); ++row) {
    if (state_[row] != kActive) continue;
    snap.rows.resize(snap.rows.size() + bytes);
    int8::PackRow(scales_[row], &codes_[row * dim_], dim_, &snap.rows[snap.rows.size() - bytes]);
    snap.members.push_back({static_cast<uint32_t>(row), version_ids_[row]});
  }
  return snap;
}

void VectorIndex::AttachGraph(std::unique_ptr<AnnGraph> graph) {
  graph_ = std::move(graph);
  std::fill(in_graph_.begin(), in_graph_.end(), 0);
  label_row_.clear();
  // A member's label is the row it had when the graph was built; a load reads the rows in the
  // same order, so the row of that number usually holds the member's version. Only when it does
  // not is the version looked up (the map built then, once: a million ids cost ~0.4 s).
  std::unordered_map<std::string_view, size_t> row_of;
  bool mapped = false;
  auto row_holding = [&](const AnnGraph::Member& m) -> std::optional<size_t> {
    if (m.label < state_.size() && state_[m.label] == kActive &&
        version_ids_[m.label] == m.version_id)
      return m.label;
    if (!mapped) {
      for (size_t row = 0; row < state_.size(); ++row)
        if (state_[row] == kActive) row_of[version_ids_[row]] = row;
      mapped = true;
    }
    auto it = row_of.find(m.version_id);
    if (it == row_of.end()) return std::nullopt;
    return it->second;
  };
  std::vector<uint8_t> ours(int8::RowBytes(dim_));
  for (const AnnGraph::Member& m : graph_->members()) {
    const std::optional<size_t> row = row_holding(m);
    const uint8_t* held = graph_->RowOf(m.label);
    bool same = row && held && !in_graph_[*row];
    if (same) {
      int8::PackRow(scales_[*row], &codes_[*row * dim_], dim_, ours.data());
      same = std::memcmp(held, ours.data(), ours.size()) == 0;
    }
    if (!same) {
      graph_->MarkStale(m.label);
      continue;
    }
    if (label_row_.size() <= m.label) label_row_.resize(m.label + 1);
    label_row_[m.label] = static_cast<uint32_t>(*row);
    row_label_[*row] = m.label;
    in_graph_[*row] = 1;
  }
  tail_.clear();
  for (size_t row = 0; row < state_.size(); ++row)
    if (state_[row] == kActive && !in_graph_[row]) tail_.push_back(row);
}

std::vector<VectorIndex::Hit> VectorIndex::Nearest(const std::vector<float>& query,
                                                   bool include_inactive, double min_similarity,
                                                   size_t k) const {
  if (query.size() != dim_ || k == 0) return {};
  if (!graph_ || include_inactive) return NearestExact(query, include_inactive, min_similarity, k);
  // The graph's best, then every tail row, all scored exactly here.
  std::vector<size_t> candidates;
  for (uint32_t label : graph_->Search(query.data(), k)) {  // scored below, as the tail is
    if (label >= label_row_.size()) continue;
    size_t row = label_row_[label];
    if (in_graph_[row] && row_label_[row] == label) candidates.push_back(row);
  }
  for (size_t row : tail_)
    if (state_[row] == kActive) candidates.push_back(row);
  return Rank(query, candidates, min_similarity, k);
}

std::vector<VectorIndex::Hit> VectorIndex::NearestExact(const std::vector<float>& query,
                                                        bool include_inactive,
                                                        double min_similarity, size_t k) const {
  auto wanted = [&](size_t row) {
    return state_[row] == kActive || (include_inactive && state_[row] == kInactive);
  };
  // Pass 1: int8 dot products over every row (a quarter of the memory traffic of floats) pick
  // candidates; pass 2 scores those exactly. Small indexes are scored exactly throughout.
  std::vector<size_t> candidates;
  const size_t want = k * kCandidatesPerResult;
  if (slot_.size() > want * 4) {
    std::vector<int8_t> q(dim_);
    int8::Quantize(query.data(), dim_, q.data());  // its scale is a common factor: order unchanged
    // The best `want` so far in a min-heap: most rows fall below its least and cost a comparison
    // (a pair kept for every row, then nth_element, took 0.9 ms of a 2.4 ms scan of 100,000
    // rows). A row scoring the same as the least kept does not replace it: the earlier row stays.
    std::vector<std::pair<float, size_t>> best;
    best.reserve(want + 1);
    auto worse = [](const auto& a, const auto& b) { return a.first > b.first; };
    for (size_t row = 0; row < state_.size(); ++row) {
      if (!wanted(row)) continue;
      const float rough =
          static_cast<float>(int8::Dot(q.data(), &codes_[row * dim_], dim_)) * scales_[row];
      if (best.size() == want && rough <= best.front().first) continue;
      best.push_back({rough, row});
      std::push_heap(best.begin(), best.end(), worse);
      if (best.size() > want) {
        std::pop_heap(best.begin(), best.end(), worse);
        best.pop_back();
      }
    }
    for (const auto& [rough, row] : best) candidates.push_back(row);
  } else {
    for (size_t row = 0; row < state_.size(); ++row)
      if (wanted(row)) candidates.push_back(row);
  }
  return Rank(query, candidates, min_similarity, k);
}

std::vector<VectorIndex::Hit> VectorIndex::Rank(const std::vector<float>& query,
                                                const std::vector<size_t>& candidates,
                                                double min_similarity, size_t k) const {
  std::vector<std::pair<float, size_t>> scored;
  for (size_t row : candidates) {
    float sim = DotUnrolled(query.data(), &data_[row * dim_], dim_);
    if (sim >= min_similarity) scored.push_back({sim, row});
  }
  size_t keep = std::min(k, scored.size());
  auto better = [&](const std::pair<float, size_t>& a, const std::pair<float, size_t>& b) {
    if (a.first != b.first) return a.first > b.first;
    return version_ids_[a.second] < version_ids_[b.second];
  };
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep),
                    scored.end(), better);
  std::vector<Hit> out;
  for (size_t i = 0; i < keep; ++i) {
    size_t row = scored[i].second;
    out.push_back(Hit{version_ids_[row], state_[row] == kActive, scored[i].first});
  }
  return out;
}

}  // namespace pc
