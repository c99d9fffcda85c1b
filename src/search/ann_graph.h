// An approximate nearest-neighbour graph (hnswlib's HNSW, inner product over unit vectors, each
// held as an int8 row: search/int8_code.h) for one memory's vectors. Built once from a snapshot,
// then only ever marked: a label whose vector changed is marked stale and never returned again; new
// vectors wait outside the graph until the next build (see search/vector_index.h). hnswlib stays
// behind this header.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

// Build parameters (hnswlib's M and ef_construction) and the search breadth. Chosen by
// measurement on 384-d vectors (bench/search_bench, tests/unit/ann_graph_test): recall of the
// exact top 10 ≥ 0.95 at a third of the default build cost. The breadth went from 96 to 128 with
// the int8 rows: recall on 100k hash vectors 0.756 (floats, 96) → 0.781, at 0.29 ms a search
// against the floats' 0.46 (docs/benchmarks.md, "The graph over int8 rows").
inline constexpr size_t kAnnLinks = 16;
inline constexpr size_t kAnnBuildBreadth = 64;
inline constexpr size_t kAnnSearchBreadth = 128;

class AnnGraph {
 public:
  ~AnnGraph();
  AnnGraph(AnnGraph&&) = delete;

  // What the graph holds: each label with the entry version whose vector it was built from.
  struct Member {
    uint32_t label;
    std::string version_id;
  };
  // Builds over members.size() int8 rows (int8::RowBytes(dim) bytes each, as int8::EncodeRow
  // writes them), row i for members[i], inserting from
  // `threads` threads at once (hnswlib's inserts lock per node; the graph differs from run to run
  // with more than one, its recall does not). Fails (Internal, "cancelled") when *stop turns
  // true, checked between rows.
  static Result<std::unique_ptr<AnnGraph>> Build(size_t dim, const uint8_t* rows,
                                                 std::vector<Member> members,
                                                 const std::atomic<bool>* stop = nullptr,
                                                 size_t threads = 1);
  // Reads a graph written by Save; an error when the file is missing, damaged, of another
  // dimension, or of float rows (saved by a version before the int8 rows).
  static Result<std::unique_ptr<AnnGraph>> Load(const std::string& path, size_t dim);
  // Writes the graph to `path` and its members to `path`.members, each whole or not at all (a
  // temp file renamed over it). A cache, not the truth: whoever loads it checks each member's
  // vector against the store's (VectorIndex::AttachGraph).
  Status Save(const std::string& path) const;
  // Removes what Save wrote.
  static void Remove(const std::string& path);

  size_t dimension() const { return dim_; }
  size_t size() const;
  const std::vector<Member>& members() const { return members_; }
  // The int8 row held for `label`, or null when the graph has no such label.
  const uint8_t* RowOf(uint32_t label) const;
  // Never returns `label` again.
  void MarkStale(uint32_t label);

  // Up to k labels, nearest first; stale labels excluded. The query (`dim` floats) is encoded as
  // a row first, and the order is the int8 rows': approximate, so the caller scores them again.
  std::vector<uint32_t> Search(const float* query, size_t k) const;

 private:
  struct Impl;
  explicit AnnGraph(size_t dim);
  size_t dim_;
  std::unique_ptr<Impl> impl_;
  std::vector<Member> members_;
};

}  // namespace pc
