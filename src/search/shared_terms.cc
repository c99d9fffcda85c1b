#include "search/shared_terms.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace pc {
namespace {

// Where a document's probe starts in a table of mask + 1 slots (Fibonacci hashing).
size_t FirstSlot(int64_t doc, size_t mask) {
  return static_cast<size_t>((static_cast<uint64_t>(doc) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

}  // namespace

void SharedTerms::AddTerm(const std::vector<int64_t>& read, int64_t docs_with_term) {
  if (read.empty()) return;
  // BM25's IDF shape, kept positive: ln(1 + N / df).
  const double weight = std::log1p(static_cast<double>(std::max<int64_t>(docs_, 1)) /
                                   static_cast<double>(std::max<int64_t>(docs_with_term, 1)));
  for (int64_t d : read) Add(d, weight);
}

void SharedTerms::Add(int64_t doc, double weight) {
  if ((used_ + 1) * 2 > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  size_t i = FirstSlot(doc, mask);
  while (slots_[i].used && slots_[i].doc != doc) i = (i + 1) & mask;
  if (!slots_[i].used) {
    slots_[i] = Slot{doc, 0.0, true};
    ++used_;
  }
  slots_[i].score += weight;  // a document's weights add up in the order its terms came
}

void SharedTerms::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<size_t>(1024, old.size() * 2), Slot{});
  used_ = 0;
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.used) continue;
    size_t i = FirstSlot(s.doc, mask);
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = s;
    ++used_;
  }
}

std::vector<int64_t> SharedTerms::Best(size_t limit) const {
  std::vector<std::pair<double, int64_t>> all;  // (summed weight, document)
  all.reserve(used_);
  for (const Slot& s : slots_)
    if (s.used) all.emplace_back(s.score, s.doc);
  const size_t keep = std::min(limit, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                    [](const auto& a, const auto& b) { return a > b; });
  std::vector<int64_t> out;
  out.reserve(keep);
  for (size_t i = 0; i < keep; ++i) out.push_back(all[i].second);
  return out;
}

}  // namespace pc
