// Pseudo-relevance feedback for full text (issue 29): the terms that the best hits of a first
// BM25 pass share, beyond the query's own, to search a second time on the same snapshot.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "search/text_query.h"

namespace pc {

// Tuned on the dev splits of MADial-Bench and MemoryBank (docs/quality.md).
struct FeedbackOptions {
  int docs = 5;       // k: the first pass's best hits that vote for terms
  int terms = 8;      // m: expansion terms searched in the second pass
  double keep = 0.5;  // λ: the first pass's share of a hit's score (RM3's interpolation)
  int pool = 30;      // first-pass depth: the hits a term's local rarity is counted over
  // Only a query of at most this many phrases is expanded: a long one (a whole dialogue) already
  // holds its topic's words, and expansion only adds noise to it (MADial dev: −0.01 to −0.05).
  int max_query_phrases = 32;
  int lenders = 3;    // the best hits that lend to the entries written next to them
  double lend = 0.3;  // the share of a lender's score its neighbours get
};

// A text's distinct topic terms: its words of at least `min_word_bytes` bytes that are not stop
// words, and its CJK bigrams without a function character (single CJK characters are too common
// to carry a topic). What a feedback term is drawn from.
std::set<std::string> TopicTerms(std::string_view text, size_t min_word_bytes);

struct FeedbackDoc {
  std::string_view text;
  double score = 0;  // first-pass BM25, higher is better
};

// The expansion terms, best first, at most options.terms: words (no stop words) and CJK bigrams
// (no function characters) of the `options.docs` best of `pool` (best first), weighted as RM3 by
// their share of each document times the document's share of the scores, times their rarity
// within `pool` (a term every hit has, such as a date's year, tells nothing). The query's own
// phrases are left out. Deterministic: ties go to the smaller term.
std::vector<std::string> FeedbackTerms(const TextQuery& query, const std::vector<FeedbackDoc>& pool,
                                       const FeedbackOptions& options);

}  // namespace pc
