// The terms the PostgreSQL store indexes and searches: exactly the SQLite store's, because they
// come from the same tokenizer chain — FTS5's "porter" stemmer over PowerContext's "pc" tokenizer
// (search/tokenizer.h), called through FTS5's tokenizer API on a private in-memory SQLite
// connection (one per thread). So Chinese, identifiers and stemming behave the same on both
// stores, and the tokenizer's golden cases hold for both.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pc::pg {

// A document's terms with the positions they occur at (colocated tokens — a CJK bigram, a whole
// identifier — share the position of the token they sit on), and its length in positions (what
// BM25 normalizes by; FTS5's column size).
struct DocumentTerms {
  std::map<std::string, std::vector<int>> positions;
  int64_t length = 0;
};
Result<DocumentTerms> IndexTerms(std::string_view text);

// A query phrase as the terms it must match at consecutive positions. Colocated query tokens
// (none today) would be alternatives in FTS5; they are left out here.
Result<std::vector<std::string>> PhraseTerms(std::string_view phrase);

}  // namespace pc::pg
