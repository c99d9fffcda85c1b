// The reconcile gate's candidate scoring (ReadTxn::SharedTermCandidates): documents that share
// terms with a statement, each term weighted by its rarity, from bounded reads of each term's
// newest documents. Pure; both stores feed it what they read.
#pragma once

#include <cstddef>
#include <cstdint>
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
  // Each document's summed weight, in an open-addressed table (power-of-two size, at most half
  // full): no allocation per document, where a hash map's node each was ~2,000 a remember.
  struct Slot {
    int64_t doc = 0;
    double score = 0;
    bool used = false;
  };
  void Add(int64_t doc, double weight);
  void Grow();

  int64_t docs_;
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace pc
