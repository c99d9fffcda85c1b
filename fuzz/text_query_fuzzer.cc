// search/text_query.h and search/tokenizer.h on any bytes (invalid UTF-8 included).
// Checked: never crashes; tokens are non-empty UTF-8 with offsets inside the input, in order;
// queries have at most kMaxQueryPhrases phrases, each non-empty UTF-8, no repeats; the same input
// gives the same query.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "common/utf8.h"
#include "fuzz_check.h"
#include "search/text_query.h"
#include "search/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string shown = fuzz::Printable(text);

  for (TokenizeMode mode : {TokenizeMode::kDocument, TokenizeMode::kQuery}) {
    std::vector<Token> tokens = Tokenize(text, mode);
    int last_start = 0;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const Token& t = tokens[i];
      FUZZ_CHECK(!t.text.empty(), shown);
      FUZZ_CHECK(IsValidUtf8(t.text), shown + " token " + fuzz::Printable(t.text));
      FUZZ_CHECK(0 <= t.start && t.start < t.end && static_cast<size_t>(t.end) <= size,
                 shown + " token " + t.text + " at " + std::to_string(t.start) + ".." +
                     std::to_string(t.end));
      FUZZ_CHECK(t.start >= last_start, shown + " token out of order: " + t.text);
      FUZZ_CHECK(i > 0 || !t.colocated, shown + " first token colocated");
      last_start = t.start;
    }
  }

  for (const QueryUnit& u : QueryUnits(text)) {
    FUZZ_CHECK(!u.text.empty() && IsValidUtf8(u.text), shown);
    if (u.kind == UnitKind::kCjk) FUZZ_CHECK(!u.chars.empty(), shown + " empty CJK unit");
  }

  TextQuery q = BuildTextQuery(text);
  FUZZ_CHECK(q.phrases.size() <= kMaxQueryPhrases, shown);
  std::set<std::string> seen;
  for (const std::string& p : q.phrases) {
    FUZZ_CHECK(!p.empty() && IsValidUtf8(p), shown + " phrase " + fuzz::Printable(p));
    FUZZ_CHECK(seen.insert(p).second, shown + " repeated phrase " + p);
  }
  FUZZ_CHECK(BuildTextQuery(text).phrases == q.phrases, shown + " not deterministic");
  return 0;
}
