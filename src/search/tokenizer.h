// The text analysis shared by documents and queries, for full-text and for the hash embedder.
//
// Text is NFKC-normalized and case-folded one character at a time (so every token keeps exact byte
// offsets into the original). Then:
//   - Latin (any script with letters and digits, except the CJK ones): words and numbers.
//     Identifiers are split the way programmers search — at `_ . - / \ :` and camelCase
//     boundaries — and in documents the whole identifier is kept too, at the first part's position.
//   - Han, Kana and Hangul runs: in documents every character is a token and every pair of
//     neighbours a colocated bigram, so 1-, 2- and longer queries all find their text; in queries a
//     run is its bigrams (or the one character).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pc {

enum class TokenizeMode { kDocument, kQuery };

struct Token {
  std::string text;  // normalized, case-folded
  int start = 0;     // byte offsets into the original text
  int end = 0;
  bool colocated = false;  // at the same position as the previous token
};

// Never fails: invalid UTF-8 bytes are treated as separators.
std::vector<Token> Tokenize(std::string_view text, TokenizeMode mode);

// Whether a token Tokenize made is a CJK character or bigram rather than a word: its first
// character is at U+3000 or above (a lead byte of 0xE3 or more), where Latin words never start.
inline bool IsCjkToken(std::string_view token) {
  return !token.empty() && static_cast<unsigned char>(token[0]) >= 0xE3;
}

// The query's searchable units in order: each Latin identifier or word as one unit, each CJK run
// as one unit. Units are substrings of the normalized query.
enum class UnitKind { kWord, kCjk };
struct QueryUnit {
  UnitKind kind;
  std::string text;                // normalized
  std::vector<std::string> chars;  // kCjk: the run's characters
};
std::vector<QueryUnit> QueryUnits(std::string_view query);

}  // namespace pc
