// The text lengths (in tokens) of full-text documents that pc_tf_rank has read, kept so the next
// search of the index need not read them again: a common-word search ranks its 200 newest
// candidates by tf and length, and FTS5 reads each candidate's length with a statement of its own
// (xColumnSize: ~11% of such a search's CPU at 100,000 entries, docs/benchmarks.md).
//
// Exact, on the grounds CommonPhrases (common_phrases.h) gives: an index's rows are only ever
// inserted or removed (a revise removes the entry's row and inserts one with the same rowid), and
// fts_stats counts every removal. Two snapshots with the same `removed` differ only by
// insertions, so they agree on every row both hold. An index's lengths are kept with the
// `removed` they were read at: a snapshot that has seen more removals starts the index's lengths
// anew, and one that has seen fewer (an older snapshot) reads without them. Only read
// transactions use it: a write's own rows might be rolled back, and its rowids given again.
// Bounded: forgotten all at once when full. Thread-safe: the store's read transactions share one.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace pc::sqlite {

class DocLengths {
 public:
  // One index's lengths at one `removed` count.
  class Index {
   public:
    // The length of document `rowid`, if read before.
    bool Find(int64_t rowid, int& length) const;
    void Add(int64_t rowid, int length);

   private:
    friend class DocLengths;
    explicit Index(DocLengths* owner) : owner_(owner) {}
    DocLengths* owner_;
    mutable std::mutex mu_;
    std::unordered_map<int64_t, int> lengths_;
  };

  // The lengths of index (kind, owner) for a snapshot that has seen `removed` removals from it,
  // or null when the kept ones are newer than the snapshot. Kept alive by the caller while used.
  std::shared_ptr<Index> For(int kind, int64_t owner, int64_t removed);

  // Documents kept over all indexes (for tests).
  size_t size() const;

  static constexpr size_t kCapacity = size_t{1} << 18;  // ~10 MB

 private:
  struct Kept {
    int64_t removed;
    std::shared_ptr<Index> index;
  };
  // An index's lengths grew by one: when all of them hold kCapacity, forget every index.
  void Grew();
  mutable std::mutex mu_;
  std::map<std::pair<int, int64_t>, Kept> kept_;  // (kind, owner) → its lengths
  std::atomic<size_t> size_{0};                   // documents added since the last forgetting
};

}  // namespace pc::sqlite
