#include "search/index_terms.h"

#include "search/porter.h"

namespace pc {
namespace {

// FTS5's positions: a token stands one past the one before, unless colocated with it (the first
// token starts the text whatever its flag).
int NextPosition(int position, const Token& t) {
  return !t.colocated || position < 0 ? position + 1 : position;
}

}  // namespace

std::vector<Token> ChainTokens(std::string_view text, TokenizeMode mode) {
  std::vector<Token> tokens = Tokenize(text, mode);
  for (Token& t : tokens) t.text = PorterStem(t.text);
  return tokens;
}

DocumentTerms DocumentTermsOf(const std::vector<Token>& tokens) {
  DocumentTerms out;
  int position = -1;
  for (const Token& t : tokens) {
    position = NextPosition(position, t);
    std::vector<int>& at = out.positions[t.text];
    if (at.empty() || at.back() != position) at.push_back(position);
  }
  out.length = position + 1;
  return out;
}

std::vector<std::string> PhraseTermsOf(std::vector<Token> tokens) {
  std::vector<std::string> out;
  for (Token& t : tokens)
    if (!t.colocated || out.empty()) out.push_back(std::move(t.text));
  return out;
}

DocumentTerms IndexTerms(std::string_view text) {
  return DocumentTermsOf(ChainTokens(text, TokenizeMode::kDocument));
}

std::vector<std::string> PhraseTerms(std::string_view phrase) {
  return PhraseTermsOf(ChainTokens(phrase, TokenizeMode::kQuery));
}

int64_t DocumentLength(std::string_view text) {
  int position = -1;
  for (const Token& t : Tokenize(text, TokenizeMode::kDocument))
    position = NextPosition(position, t);
  return position + 1;
}

}  // namespace pc
