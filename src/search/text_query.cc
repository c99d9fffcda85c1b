#include "search/text_query.h"

#include <unordered_set>

#include "search/tokenizer.h"

namespace pc {
namespace {

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
      "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "for", "with",
      "by", "from", "as", "is", "are", "was", "were", "be", "been", "am", "do", "does", "did",
      "i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us", "them", "my", "your",
      "his", "its", "our", "their", "this", "that", "these", "those", "so", "not", "no", "can",
      "will", "would", "could", "should", "have", "has", "had", "what", "how", "there", "here",
      "just", "too", "very", "oh", "s", "t", "m", "re", "ll", "ve", "d"};
  return kWords.count(w) > 0;
}

}  // namespace

TextQuery BuildTextQuery(std::string_view query) {
  TextQuery out;
  std::unordered_set<std::string> seen;
  auto add = [&](std::string phrase) {
    if (out.phrases.size() < kMaxQueryPhrases && seen.insert(phrase).second)
      out.phrases.push_back(std::move(phrase));
  };
  for (QueryUnit& u : QueryUnits(query)) {
    if (u.kind == UnitKind::kWord) {
      if (!IsStopWord(u.text)) add(u.text);
      continue;
    }
    if (u.chars.size() == 1) {
      add(u.chars[0]);
      continue;
    }
    for (size_t i = 0; i + 1 < u.chars.size(); ++i) add(u.chars[i] + u.chars[i + 1]);
    for (const std::string& c : u.chars)
      if (!IsFunctionChar(c)) add(c);
  }
  if (out.phrases.empty()) {  // nothing but function words: search them after all
    for (QueryUnit& u : QueryUnits(query))
      if (u.kind == UnitKind::kWord && seen.insert(u.text).second) out.phrases.push_back(u.text);
      else if (u.kind == UnitKind::kCjk)
        for (const std::string& c : u.chars)
          if (seen.insert(c).second) out.phrases.push_back(c);
  }
  return out;
}

}  // namespace pc
