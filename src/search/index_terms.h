// The tokenizer chain both stores index with, and the terms an index holds. The chain is
// search/tokenizer's tokens, each stemmed by PorterStem: what SQLite's FTS5 makes of them with
// tokenize = 'porter pc' (a test compares the two on every tokenizer case). The SQLite store runs
// it inside FTS5 (store/sqlite/fts_extensions bridges the tokenizer); the PostgreSQL store writes
// and searches the terms below. Positions and lengths follow FTS5's rules. Pure, thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "search/tokenizer.h"

namespace pc {

// The chain's tokens: Tokenize's, their text stemmed, offsets and colocation kept.
std::vector<Token> ChainTokens(std::string_view text, TokenizeMode mode);

// A document's terms with the positions they occur at (colocated tokens — a CJK bigram, a whole
// identifier — share the position of the token they sit on), and its length in positions (what
// BM25 normalizes by; FTS5's column size).
struct DocumentTerms {
  std::map<std::string, std::vector<int>> positions;
  int64_t length = 0;
};
DocumentTerms DocumentTermsOf(const std::vector<Token>& tokens);
// DocumentTermsOf(the chain's document tokens of `text`).
DocumentTerms IndexTerms(std::string_view text);

// A query phrase as the terms it must match at consecutive positions. Colocated query tokens
// (none today) would be alternatives in FTS5; they are left out here.
std::vector<std::string> PhraseTermsOf(std::vector<Token> tokens);
// PhraseTermsOf(the chain's query tokens of `phrase`).
std::vector<std::string> PhraseTerms(std::string_view phrase);

// The length FTS5 gives `text` as a document column: IndexTerms(text).length, without stemming
// (which changes no count).
int64_t DocumentLength(std::string_view text);

}  // namespace pc
