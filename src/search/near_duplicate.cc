#include "search/near_duplicate.h"

#include <algorithm>

#include "search/stopwords.h"
#include "search/tokenizer.h"
#include "search/version_terms.h"

namespace pc {

std::vector<std::string> SimilarityTerms(std::string_view text) {
  std::vector<std::string> out;
  for (Token& t : Tokenize(text, TokenizeMode::kDocument)) {
    if (IsStopWord(t.text) || IsFunctionChar(t.text)) continue;
    out.push_back(std::move(t.text));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double TermSimilarity(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() && b.empty()) return 1.0;
  if (a.empty() || b.empty()) return 0.0;
  size_t common = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j]) {
      ++common, ++i, ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return 2.0 * static_cast<double>(common) / static_cast<double>(a.size() + b.size());
}

double TextSimilarity(std::string_view a, std::string_view b) {
  return TermSimilarity(SimilarityTerms(a), SimilarityTerms(b));
}

std::shared_ptr<const std::vector<std::string>> VersionSimilarityTerms(
    const std::string& entry_version_id, std::string_view text) {
  static VersionTerms cache(&SimilarityTerms);
  return cache.Get(entry_version_id, text);
}

}  // namespace pc
