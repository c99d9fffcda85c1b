#include "search/shared_terms.h"

#include <algorithm>
#include <cmath>

namespace pc {

void SharedTerms::AddTerm(const std::vector<int64_t>& read, int64_t docs_with_term) {
  if (read.empty()) return;
  // BM25's IDF shape, kept positive: ln(1 + N / df).
  const double weight = std::log1p(static_cast<double>(std::max<int64_t>(docs_, 1)) /
                                   static_cast<double>(std::max<int64_t>(docs_with_term, 1)));
  for (int64_t d : read) score_[d] += weight;
}

std::vector<int64_t> SharedTerms::Best(size_t limit) const {
  std::vector<std::pair<double, int64_t>> all;
  all.reserve(score_.size());
  for (const auto& [doc, score] : score_) all.emplace_back(score, doc);
  const size_t keep = std::min(limit, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                    [](const auto& a, const auto& b) { return a > b; });
  std::vector<int64_t> out;
  out.reserve(keep);
  for (size_t i = 0; i < keep; ++i) out.push_back(all[i].second);
  return out;
}

}  // namespace pc
