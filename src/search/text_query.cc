#include "search/text_query.h"

#include <set>
#include <unordered_set>

#include "common/ascii.h"
#include "search/stopwords.h"
#include "search/tokenizer.h"

namespace pc {
namespace {

// English writes a day or a rank both ways ("May 4th", "May 4, 2023"; "the 3rd floor", "floor
// 3"): a number's other spelling, the ordinal's digits or the number's ordinal ("" if neither).
std::string OtherSpelling(std::string_view word) {
  if (word.size() > 2 && word.size() <= 5) {
    const std::string_view digits = word.substr(0, word.size() - 2);
    const std::string_view suffix = word.substr(word.size() - 2);
    if (AllAsciiDigits(digits) &&
        (suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th"))
      return std::string(digits);
  }
  if (!AllAsciiDigits(word) || word.size() > 3) return "";
  const int n = std::stoi(std::string(word));
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
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
      if (!IsStopWord(u.text)) {
        std::string other = OtherSpelling(u.text);
        add(std::move(u.text));
        if (!other.empty()) add(std::move(other));
      }
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
      if (u.kind == UnitKind::kWord && seen.insert(u.text).second)
        out.phrases.push_back(u.text);
      else if (u.kind == UnitKind::kCjk)
        for (const std::string& c : u.chars)
          if (seen.insert(c).second) out.phrases.push_back(c);
  }
  return out;
}

std::vector<std::string> RankingTerms(std::string_view text) {
  std::vector<std::string> out;
  for (Token& t : Tokenize(text, TokenizeMode::kDocument)) {
    if (IsStopWord(t.text) || IsFunctionChar(t.text)) continue;
    out.push_back(std::move(t.text));
  }
  return out;
}

AnalyzedQuery AnalyzeQuery(std::string_view query) {
  AnalyzedQuery out;
  out.text = BuildTextQuery(query);
  std::set<std::string> once;
  for (std::string& t : RankingTerms(query))
    if (once.insert(t).second) out.terms.push_back(std::move(t));
  return out;
}

}  // namespace pc
