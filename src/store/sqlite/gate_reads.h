// The reconcile gate's reads (SqliteTxn::SharedTermCandidates), kept between writes on the
// writer's connection, where they were half of a remember's CPU (docs/benchmarks.md):
// - for an indexed token of memory_fts, its first `cap` active rows in rowid order — exactly what
//   the gate's statement reads — so a write finds most of its terms here instead of starting an
//   FTS5 cursor and reading up to `cap` rows for each;
// - for a candidate's memory_fts row, whether it is active and the entry version it holds.
//
// Exact, not a guess: an inserted active row joins a token's list when it sorts among the first
// `cap`; a removed one leaves it, and a full list that loses a row is forgotten (its next row is
// unknown) and read again; a row written in any way is forgotten. Valid only for what its
// connection sees (Db drops everything at any rollback, and when a transaction begins after
// another connection has committed). Bounded: each part is forgotten all at once when full (~32 MB
// of lists, 16 MB of candidate rows). Not thread-safe: the writer's turn guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace pc::sqlite {

class GateReads {
 public:
  static constexpr size_t kMaxListed = size_t{1} << 22;  // row ids in lists, 8 bytes each
  static constexpr size_t kTokenCost = 16;  // a token's key, list and map node, in row ids
  static constexpr size_t kMaxRowBytes = size_t{16} << 20;  // candidate rows, their text included

  // The first rows of `token` (an indexed token, tag included) as read with this cap, ascending;
  // nullptr when not kept.
  const std::vector<int64_t>* Find(const std::string& token, size_t cap) const;
  // What a read of `token`'s first `cap` active rows found (all of them when fewer than `cap`).
  void Put(const std::string& token, size_t cap, std::vector<int64_t> rows);

  // Row `row` as read (its activity and entry version); nullptr when not kept.
  const ManifestItem* FindRow(int64_t row) const;
  void PutRow(int64_t row, const ManifestItem& item);

  // Row `row` was inserted or removed; `tokens`: its text's (repeats allowed) when the row is
  // active, none when it is retired.
  void Added(std::vector<std::string> tokens, int64_t row);
  void Removed(std::vector<std::string> tokens, int64_t row);
  void Clear();
  // Whether lists are kept (a row's tokens are only worth computing then).
  bool listing() const { return !lists_.empty(); }
  size_t listed() const { return listed_; }

 private:
  struct List {
    size_t cap = 0;
    std::vector<int64_t> rows;
  };
  static void Distinct(std::vector<std::string>& tokens);
  static size_t RowBytes(const ManifestItem& item);
  void Follow(std::vector<std::string> tokens, int64_t row, bool added);
  void ForgetRow(int64_t row);
  std::unordered_map<std::string, List> lists_;
  size_t listed_ = 0;  // row ids over all lists
  std::unordered_map<int64_t, ManifestItem> rows_;
  size_t row_bytes_ = 0;  // over rows_ (RowBytes)
};

}  // namespace pc::sqlite
