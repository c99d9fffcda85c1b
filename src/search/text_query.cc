#include "search/text_query.h"

#include <set>
#include <unordered_set>

#include "search/stopwords.h"
#include "search/tokenizer.h"

namespace pc {

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
