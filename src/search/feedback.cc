#include "search/feedback.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

#include "search/stopwords.h"
#include "search/tokenizer.h"

namespace pc {
std::set<std::string> TopicTerms(std::string_view text, size_t min_word_bytes) {
  std::set<std::string> out;
  for (QueryUnit& u : QueryUnits(text)) {
    if (u.kind == UnitKind::kWord) {
      if (u.text.size() >= min_word_bytes && !IsStopWord(u.text)) out.insert(u.text);
      continue;
    }
    for (size_t i = 0; i + 1 < u.chars.size(); ++i)
      if (!IsFunctionChar(u.chars[i]) && !IsFunctionChar(u.chars[i + 1]))
        out.insert(u.chars[i] + u.chars[i + 1]);
  }
  return out;
}

std::vector<std::string> FeedbackTerms(const TextQuery& query, const std::vector<FeedbackDoc>& pool,
                                       const FeedbackOptions& options) {
  if (pool.empty() || options.terms <= 0 || options.docs <= 0) return {};
  if (query.phrases.size() > static_cast<size_t>(options.max_query_phrases)) return {};
  std::vector<std::set<std::string>> terms;
  std::map<std::string, int> df;
  for (const FeedbackDoc& d : pool) {
    terms.push_back(TopicTerms(d.text, 2));
    for (const std::string& t : terms.back()) ++df[t];
  }
  const size_t k = std::min(pool.size(), static_cast<size_t>(options.docs));
  double total = 0;
  for (size_t i = 0; i < k; ++i) total += std::max(0.0, pool[i].score);
  const std::unordered_set<std::string> own(query.phrases.begin(), query.phrases.end());
  std::map<std::string, double> weight;
  for (size_t i = 0; i < k; ++i) {
    if (terms[i].empty()) continue;
    const double doc_share =
        total > 0 ? std::max(0.0, pool[i].score) / total : 1.0 / static_cast<double>(k);
    for (const std::string& t : terms[i])
      if (!own.count(t)) weight[t] += doc_share / static_cast<double>(terms[i].size());
  }
  std::vector<std::pair<double, std::string>> ranked;
  const double n = static_cast<double>(pool.size());
  for (auto& [t, w] : weight) ranked.emplace_back(w * std::log(1.0 + n / df[t]), t);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < ranked.size() && out.size() < static_cast<size_t>(options.terms); ++i)
    out.push_back(ranked[i].second);
  return out;
}

}  // namespace pc
