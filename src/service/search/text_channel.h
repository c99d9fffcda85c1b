// The full-text channel of a search (issue 29): BM25 over the query's phrases, then, unless turned
// off, pseudo-relevance feedback and neighbour propagation — all on the caller's snapshot.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "search/feedback.h"
#include "search/text_query.h"
#include "store/store.h"

namespace pc {

struct TextChannelOptions {
  bool include_inactive = false;
  int depth = 10;                             // hits returned at most
  const FeedbackOptions* feedback = nullptr;  // null: plain BM25
};

// The `depth` best entries of `memory` at its head revision for `text`, best first, scores on
// BM25's scale (higher is better). With feedback:
//  1. the first pass reads options.feedback->pool hits; FeedbackTerms picks expansion terms from
//     them, and a second search of those terms alone scores the memory again; a hit's score is
//     keep × first + (1 − keep) × second (the second rescaled to the first's best), RM3-style;
//  2. the `lenders` best lend `lend` × their score to the entries written next to them: those
//     changed by the revisions just before and just after the one that wrote the lender's head
//     version (a Remember is one revision, so these are the memories remembered right before and
//     after it), read from the same snapshot.
// Deterministic on a snapshot: ties keep the first pass's order, then the second's.
Result<std::vector<ReadTxn::TextHit>> SearchTextChannel(ReadTxn& txn, const Artifact& memory,
                                                        const TextQuery& text,
                                                        const TextChannelOptions& options);

}  // namespace pc
