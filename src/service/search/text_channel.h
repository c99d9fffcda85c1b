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
// BM25's scale (higher is better). With feedback, unless the query has more than
// max_query_phrases phrases (then it is plain BM25):
//  1. BM25 reads max(depth, pool) hits; Expand picks expansion terms from the best of them, and
//     each hit's score becomes keep × BM25 + (1 − keep) × its expansion score (rescaled to the
//     BM25 scores' best), RM3-style, but within the pool: no second search (it cost 3× a plain
//     search for +0.01 R@10 on MemoryBank en held-out; docs/quality.md);
//  2. the `lenders` best lend `lend` × their score to the entries written next to them: those
//     changed by the revisions just before and just after the one that wrote the lender's head
//     version (a Remember is one revision, so these are the memories remembered right before and
//     after it), read from the same snapshot, if the neighbour holds one of the query's phrases or
//     expansion terms (about the same topic). A lent-to entry outside the pool joins the hits.
// Deterministic on a snapshot: ties keep BM25's order, then the order loans were made in.
Result<std::vector<ReadTxn::TextHit>> SearchTextChannel(ReadTxn& txn, const Artifact& memory,
                                                        const TextQuery& text,
                                                        const TextChannelOptions& options);

}  // namespace pc
