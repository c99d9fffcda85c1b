// Turns any user string into a full-text query: a list of phrases OR'ed together and ranked by
// BM25. Nothing of the user's string reaches the engine's query syntax: each phrase is plain text
// that the store quotes and the tokenizer re-reads, so quotes, AND, *, :, parentheses or emoji are
// just characters.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pc {

// At most this many phrases: a long query (a whole dialogue) keeps its first, most of them
// distinct, and stays bounded in cost.
inline constexpr size_t kMaxQueryPhrases = 512;

struct TextQuery {
  std::vector<std::string> phrases;  // each matched as a phrase; any may match
  bool empty() const { return phrases.empty(); }
};

// Words and identifiers become one phrase each (an identifier is matched as its parts in order);
// English function words are left out. A CJK run becomes its character bigrams and its characters
// (less Chinese function characters). A number and its English ordinal find each other ("4th"
// also searches "4", "3" also "3rd"): dates and ranks are written both ways. Repeats count once.
// A query of nothing but function words searches them after all. (Each choice measured on
// MADial-Bench and MemoryBank: docs/quality.md.)
TextQuery BuildTextQuery(std::string_view query);

// Terms of a text for ranking in memory (Experience, search/bm25): the tokenizer's document
// tokens, folded, without stop words or CJK function characters; repeats kept (term frequency).
std::vector<std::string> RankingTerms(std::string_view text);

// A request's query, analyzed once and reused by every channel that reads it (prepare: memory
// and source full text, Experience ranking): the full-text query and the ranking terms.
struct AnalyzedQuery {
  TextQuery text;                  // BuildTextQuery
  std::vector<std::string> terms;  // RankingTerms, each once
};
AnalyzedQuery AnalyzeQuery(std::string_view query);

// Both stores' plan for a query whose every phrase is common in an index of `docs` documents:
// whether it may look for the documents with all of them, which walks each phrase's whole
// document list (at most `docs` each), up to kAllPhrasesPostings in all. Past that only the
// newest documents with any of them are ranked, so the cost stays bounded (issue 28).
inline constexpr long long kAllPhrasesPostings = 40000;
inline bool AllPhrasesAffordable(long long docs, size_t phrases) {
  return docs * static_cast<long long>(phrases) <= kAllPhrasesPostings;
}

}  // namespace pc
