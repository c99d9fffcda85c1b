#include "search/shared_terms.h"

#include <algorithm>
#include <cmath>

namespace pc {

void SharedTerms::AddTerm(const std::vector<int64_t>& read, int64_t docs_with_term) {
  if (read.empty()) return;
  // BM25's IDF shape, kept positive: ln(1 + N / df).
  const double weight = std::log1p(static_cast<double>(std::max<int64_t>(docs_, 1)) /
                                   static_cast<double>(std::max<int64_t>(docs_with_term, 1)));
  for (int64_t d : read) read_.emplace_back(d, weight);
}

std::vector<int64_t> SharedTerms::Best(size_t limit) {
  // Stable: a document's weights are added in the order they were read, so its sum is the same
  // to the last bit however many terms share it.
  std::stable_sort(read_.begin(), read_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<double, int64_t>> all;  // (summed weight, document)
  for (const auto& [doc, weight] : read_) {
    if (all.empty() || all.back().second != doc) all.emplace_back(0.0, doc);
    all.back().first += weight;
  }
  const size_t keep = std::min(limit, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                    [](const auto& a, const auto& b) { return a > b; });
  std::vector<int64_t> out;
  out.reserve(keep);
  for (size_t i = 0; i < keep; ++i) out.push_back(all[i].second);
  return out;
}

}  // namespace pc
