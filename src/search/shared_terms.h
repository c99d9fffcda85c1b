// The reconcile gate's candidate scoring (ReadTxn::SharedTermCandidates): documents that share
// terms with a statement, each term weighted by its rarity, from bounded reads of each term's
// newest documents. Pure; both stores feed it what they read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pc {

class SharedTerms {
 public:
  explicit SharedTerms(int64_t docs) : docs_(docs) {}
  // One term's documents as read, and how many documents have the term (for a term read to its
  // end, exactly its documents; for a common one cut short, a lower bound): weighted by rarity,
  // so a rare word shared outweighs common ones.
  void AddTerm(const std::vector<int64_t>& read, int64_t docs_with_term);
  // The `limit` documents of the highest summed weight, newest first among equals.
  std::vector<int64_t> Best(size_t limit);

 private:
  int64_t docs_;
  // Every (document, weight) read, in the order read: summed per document by Best, in that
  // order (one sort instead of a hash node per document: ~2,000 of them a remember).
  std::vector<std::pair<int64_t, double>> read_;
};

}  // namespace pc
