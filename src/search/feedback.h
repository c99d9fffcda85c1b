// Pseudo-relevance feedback for full text (issue 29): the terms that the best hits of a BM25 pass
// share, beyond the query's own, and how strongly each hit of the pass holds them — to re-rank
// the pass on the same snapshot.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "search/text_query.h"

namespace pc {

// Tuned on the dev splits of MADial-Bench and MemoryBank (docs/quality.md, "Beyond plain BM25").
struct FeedbackOptions {
  int docs = 5;       // k: the pool's best hits that vote for terms
  int terms = 12;     // m: expansion terms
  double keep = 0.7;  // λ: the BM25 score's share of a hit's score (RM3's interpolation)
  int pool = 20;      // the hits read and re-ranked (or the request's limit, if larger)
  // A query of more than this many phrases (a whole dialogue, a task description) is plain BM25:
  // it already holds its topic's words; expansion and neighbours only added noise to it (MADial
  // dev: −0.01 to −0.05 R@10 with expansion).
  int max_query_phrases = 32;
  int lenders = 3;    // the best hits that lend to the entries written next to them
  double lend = 0.5;  // the share of a lender's score its neighbours get
};

// A text's distinct topic terms, sorted: its words of at least `min_word_bytes` bytes that are not
// stop words, and its CJK bigrams without a function character (single CJK characters are too
// common to carry a topic). What a feedback term is drawn from.
std::vector<std::string> TopicTerms(std::string_view text, size_t min_word_bytes);
// TopicTerms(text, 2) of an entry version, kept by its id (search/version_terms.h).
std::shared_ptr<const std::vector<std::string>> VersionTopicTerms(
    const std::string& entry_version_id, std::string_view text);

struct FeedbackDoc {
  std::string_view text;
  double score = 0;  // BM25, higher is better
  // TopicTerms(text, 2), if the caller has them (VersionTopicTerms); else Expand makes them.
  std::shared_ptr<const std::vector<std::string>> terms;
};

struct Expansion {
  std::vector<std::string> terms;  // best first, at most options.terms
  // Per document of the pool, in its order: the weights of the expansion terms it holds, summed
  // (0 for a document with none of them).
  std::vector<double> scores;
};

// The expansion terms: words (no stop words) and CJK bigrams (no function characters) of the
// `options.docs` best of `pool` (best first), weighted as RM3 by their share of each document
// times the document's share of the scores, times their rarity within `pool` (a term every hit has,
// such as a date's year, tells nothing). The query's own phrases are left out; a query of more than
// options.max_query_phrases phrases gets none. Deterministic: ties go to the smaller term.
Expansion Expand(const TextQuery& query, const std::vector<FeedbackDoc>& pool,
                 const FeedbackOptions& options);

}  // namespace pc
