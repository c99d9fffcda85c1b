#include "search/near_duplicate.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "search/stopwords.h"
#include "search/tokenizer.h"

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

namespace {

// 16 shards of at most 4,096 versions (a few hundred bytes each): ~20 MB at most.
constexpr size_t kShards = 16;
constexpr size_t kPerShard = 4096;

struct TermShard {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const std::vector<std::string>>> terms;
};

}  // namespace

std::shared_ptr<const std::vector<std::string>> VersionSimilarityTerms(
    const std::string& entry_version_id, std::string_view text) {
  static TermShard shards[kShards];
  TermShard& shard = shards[std::hash<std::string>{}(entry_version_id) % kShards];
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    if (auto it = shard.terms.find(entry_version_id); it != shard.terms.end()) return it->second;
  }
  auto made = std::make_shared<const std::vector<std::string>>(SimilarityTerms(text));
  std::lock_guard<std::mutex> lock(shard.mu);
  if (shard.terms.size() >= kPerShard) shard.terms.clear();
  shard.terms.emplace(entry_version_id, made);
  return made;
}

}  // namespace pc
