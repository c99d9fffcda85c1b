// The reconcile gate's candidate scoring (ReadTxn::SharedTermCandidates): documents that share
// terms with a statement, each term weighted by its rarity, from bounded reads of each term's
// newest documents. Pure; both stores feed it what they read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
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
  std::vector<int64_t> Best(size_t limit) const;

 private:
  int64_t docs_;
  std::unordered_map<int64_t, double> score_;
};

}  // namespace pc
