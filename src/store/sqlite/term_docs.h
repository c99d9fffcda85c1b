// The reconcile gate's per-term reads (SqliteTxn::SharedTermCandidates), kept between writes on
// the writer's connection: for an indexed token of memory_fts, its first `cap` active rows in
// rowid order — exactly what the gate's statement reads — kept up to date as the connection
// writes and removes rows, so a write finds most of its terms here instead of starting an FTS5
// cursor and reading up to `cap` rows for each (half of a remember's CPU: docs/benchmarks.md).
//
// Exact, not a guess: an inserted active row joins a token's list when it sorts among the first
// `cap`; a removed one leaves it, and a full list that loses a row is forgotten (its next row is
// unknown) and read again. Valid only for what its connection sees (Db::term_docs drops it after
// any rollback and when another connection has committed). Bounded: forgotten all at once when
// its row ids, a token counted as kTokenCost of them, reach kMaxRows (~32 MB). Not thread-safe:
// the writer's turn guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pc::sqlite {

class TermDocs {
 public:
  static constexpr size_t kMaxRows = size_t{1} << 22;  // 8 bytes each
  static constexpr size_t kTokenCost = 16;             // a token's key, list and map node

  // The first rows of `token` (an indexed token, tag included) as read with this cap, ascending;
  // nullptr when not kept.
  const std::vector<int64_t>* Find(const std::string& token, size_t cap) const;
  // What a read of `token`'s first `cap` active rows found (all of them when fewer than `cap`).
  void Put(const std::string& token, size_t cap, std::vector<int64_t> rows);
  // An active row was inserted with these tokens (repeats allowed), or removed.
  void Added(std::vector<std::string> tokens, int64_t row);
  void Removed(std::vector<std::string> tokens, int64_t row);
  void Clear();
  bool empty() const { return docs_.empty(); }
  size_t rows() const { return rows_; }

 private:
  struct Docs {
    size_t cap = 0;
    std::vector<int64_t> rows;
  };
  std::unordered_map<std::string, Docs> docs_;
  size_t rows_ = 0;  // over all tokens
};

}  // namespace pc::sqlite
