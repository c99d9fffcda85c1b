#include "search/feedback.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "search/stopwords.h"
#include "search/tokenizer.h"
#include "search/version_terms.h"

namespace pc {

std::vector<std::string> TopicTerms(std::string_view text, size_t min_word_bytes) {
  std::vector<std::string> out;
  for (QueryUnit& u : QueryUnits(text)) {
    if (u.kind == UnitKind::kWord) {
      if (u.text.size() >= min_word_bytes && !IsStopWord(u.text)) out.push_back(std::move(u.text));
      continue;
    }
    for (size_t i = 0; i + 1 < u.chars.size(); ++i)
      if (!IsFunctionChar(u.chars[i]) && !IsFunctionChar(u.chars[i + 1]))
        out.push_back(u.chars[i] + u.chars[i + 1]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::shared_ptr<const std::vector<std::string>> VersionTopicTerms(
    const std::string& entry_version_id, std::string_view text) {
  static VersionTerms cache(
      [](std::string_view t) -> std::vector<std::string> { return TopicTerms(t, 2); });
  return cache.Get(entry_version_id, text);
}

Expansion Expand(const TextQuery& query, const std::vector<FeedbackDoc>& pool,
                 const FeedbackOptions& options) {
  Expansion out;
  out.scores.assign(pool.size(), 0);
  if (pool.empty() || options.terms <= 0 || options.docs <= 0) return out;
  if (query.phrases.size() > static_cast<size_t>(options.max_query_phrases)) return out;
  std::vector<std::shared_ptr<const std::vector<std::string>>> made;
  std::vector<const std::vector<std::string>*> terms;
  std::unordered_map<std::string_view, int> df;
  terms.reserve(pool.size());
  for (const FeedbackDoc& d : pool) {
    if (!d.terms)
      made.push_back(std::make_shared<const std::vector<std::string>>(TopicTerms(d.text, 2)));
    terms.push_back(d.terms ? d.terms.get() : made.back().get());
  }
  for (const auto* doc : terms)
    for (const std::string& t : *doc) ++df[t];
  const size_t k = std::min(pool.size(), static_cast<size_t>(options.docs));
  double total = 0;
  for (size_t i = 0; i < k; ++i) total += std::max(0.0, pool[i].score);
  const std::unordered_set<std::string_view> own(query.phrases.begin(), query.phrases.end());
  std::unordered_map<std::string_view, double> weight;
  for (size_t i = 0; i < k; ++i) {
    if (terms[i]->empty()) continue;
    const double doc_share =
        total > 0 ? std::max(0.0, pool[i].score) / total : 1.0 / static_cast<double>(k);
    for (const std::string& t : *terms[i])
      if (!own.count(t)) weight[t] += doc_share / static_cast<double>(terms[i]->size());
  }
  std::vector<std::pair<double, std::string_view>> ranked;
  const double n = static_cast<double>(pool.size());
  for (const auto& [t, w] : weight) ranked.emplace_back(w * std::log(1.0 + n / df[t]), t);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (ranked.size() > static_cast<size_t>(options.terms)) ranked.resize(options.terms);
  for (const auto& [w, t] : ranked) out.terms.emplace_back(t);
  for (size_t i = 0; i < pool.size(); ++i)
    for (const auto& [w, t] : ranked)
      if (std::binary_search(terms[i]->begin(), terms[i]->end(), t)) out.scores[i] += w;
  return out;
}

}  // namespace pc
