#include "search/text_query.h"

#include <unordered_set>

#include "search/tokenizer.h"

namespace pc {
namespace {

constexpr size_t kMinRunPhrase = 3;   // shorter runs are already one bigram
constexpr size_t kMaxRunPhrase = 12;  // longer exact runs are rare; their bigrams carry them

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
      add(u.text);
      continue;
    }
    if (u.chars.size() == 1) {
      add(u.chars[0]);
      continue;
    }
    if (u.chars.size() >= kMinRunPhrase && u.chars.size() <= kMaxRunPhrase) add(u.text);
    for (size_t i = 0; i + 1 < u.chars.size(); ++i) add(u.chars[i] + u.chars[i + 1]);
  }
  return out;
}

}  // namespace pc
