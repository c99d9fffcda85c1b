#include "search/stopwords.h"

#include <unordered_set>

namespace pc {

// Chinese function characters: alone they match nearly every text and only add noise; inside a
// bigram they still count. (Measured on MADial-Bench zh: see docs/quality.md.)
bool IsFunctionChar(const std::string& c) {
  static const std::unordered_set<std::string> kChars = {
      "的", "了", "是", "我", "你", "他", "她", "它", "在", "有", "和", "吗", "呢", "啊", "吧",
      "也", "都", "就", "很", "不", "这", "那", "个", "一", "们", "着", "过", "得", "地", "么"};
  return kChars.count(c) > 0;
}

// English function words, for the same reason. A query made only of them still searches them.
bool IsStopWord(const std::string& w) {
  static const std::unordered_set<std::string> kWords = {
      "a",     "an",     "the",  "and",   "or",    "but",  "if",  "of",    "to",   "in",   "on",
      "at",    "for",    "with", "by",    "from",  "as",   "is",  "are",   "was",  "were", "be",
      "been",  "am",     "do",   "does",  "did",   "i",    "you", "he",    "she",  "it",   "we",
      "they",  "me",     "him",  "her",   "us",    "them", "my",  "your",  "his",  "its",  "our",
      "their", "this",   "that", "these", "those", "so",   "not", "no",    "can",  "will", "would",
      "could", "should", "have", "has",   "had",   "what", "how", "there", "here", "just", "too",
      "very",  "oh",     "s",    "t",     "m",     "re",   "ll",  "ve",    "d"};
  return kWords.count(w) > 0;
}

}  // namespace pc
