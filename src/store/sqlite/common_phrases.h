// The phrases a full-text search found common (in more documents of an index than its plan counts),
// remembered so the next search of that index need not count them again (SqliteTxn::PlanText spent
// 18% of a concurrent search's time counting up to 501 rows per phrase: docs/benchmarks.md).
//
// Exact, not a guess. An index's rows are only ever inserted, or removed (a revised or retired
// entry's old row), and fts_stats counts both: `docs` (inserted − removed) and `removed`. Two
// snapshots with the same `removed` differ only by insertions, so the one with at least as many
// documents holds every row of the other: a phrase in more than `cap` documents of the first is in
// more than `cap` of the second. Hence: known common when the index's `removed` is the one seen,
// its `docs` at least those seen, and the plan's cap at most the one counted against. Filled only
// from read transactions (a write's rows might be rolled back). Owners are never deleted, so an
// owner's rowid names one index for the store's life. Bounded: forgotten all at once when full.
// Thread-safe: the store's read transactions share one.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace pc::sqlite {

struct TextIndex;

class CommonPhrases {
 public:
  // Whether `phrase` is known to be in more than `cap` documents of `index` (at this snapshot).
  bool Known(const TextIndex& index, const std::string& phrase, int64_t cap) const;
  // `phrase` was counted in more than `cap` documents of `index`, in a read transaction.
  void Remember(const TextIndex& index, const std::string& phrase, int64_t cap);

  static constexpr size_t kCapacity = 8192;

 private:
  struct Seen {
    int64_t removed, docs, cap;
  };
  static std::string KeyOf(const TextIndex& index, const std::string& phrase);
  mutable std::mutex mu_;
  std::unordered_map<std::string, Seen> seen_;  // kind, owner, phrase → when it was counted
};

}  // namespace pc::sqlite
