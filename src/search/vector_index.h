// An in-memory copy of one memory's head vectors (one profile). Small indexes are searched by
// exact scan; a large one gets an approximate graph (search/ann_graph.h) built off to the side
// from a snapshot, and from then on the vectors that changed since are scanned exactly beside it
// (the tail), until the next build folds them in.
// Not thread-safe by itself: the owner guards it (see service/search/vector_cache.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "search/ann_graph.h"

namespace pc {

class VectorIndex {
 public:
  explicit VectorIndex(size_t dimension) : dim_(dimension) {}

  size_t dimension() const { return dim_; }
  // Entries held (active or not).
  size_t size() const { return slot_.size(); }

  // Makes room for `rows` entries at once (a load that knows its size grows no buffer twice).
  void Reserve(size_t rows);
  // Inserts or replaces the entry's vector (its head version).
  void Upsert(const std::string& entry_id, const std::string& version_id, bool active,
              const float* vector);
  void Remove(const std::string& entry_id);

  struct Hit {
    std::string version_id;
    bool active;
    float similarity;
  };
  // The k most similar (dot product of unit vectors), at least `min_similarity`, best first;
  // ties by version id. With a graph, active-only searches are approximate (see AnnGraph);
  // include_inactive searches are always exact.
  std::vector<Hit> Nearest(const std::vector<float>& query, bool include_inactive,
                           double min_similarity, size_t k) const;

  // The active vectors' int8 rows (int8::PackRow), copied, to build a graph from without holding
  // the owner's lock.
  struct Snapshot {
    std::vector<uint8_t> rows;
    std::vector<AnnGraph::Member> members;
  };
  Snapshot TakeSnapshot() const;
  // Uses `graph` for active-only searches. Each member whose version is no longer this index's
  // active head, or whose int8 row differs from the one held here, is marked stale; active rows
  // the graph lacks make up the tail.
  void AttachGraph(std::unique_ptr<AnnGraph> graph);
  bool has_graph() const { return graph_ != nullptr; }
  // Rows changed since the graph was built (0 without a graph): the active ones among them are
  // searched exactly beside it.
  size_t tail_size() const;

 private:
  enum RowState : uint8_t { kInactive, kActive, kRemoved };
  void LeaveGraph(size_t row);
  std::vector<Hit> NearestExact(const std::vector<float>& query, bool include_inactive,
                                double min_similarity, size_t k) const;
  std::vector<Hit> Rank(const std::vector<float>& query, const std::vector<size_t>& candidates,
                        double min_similarity, size_t k) const;

  size_t dim_;
  std::vector<float> data_;    // one row of dim_ floats per entry ever held (rows never move)
  std::vector<int8_t> codes_;  // the same rows quantized to int8 (scanned first: 4x less memory)
  std::vector<float> scales_;  // per row: code * scale ≈ float
  std::vector<std::string> version_ids_;
  std::vector<uint8_t> state_;                    // RowState per row
  std::unordered_map<std::string, size_t> slot_;  // entry_id -> row

  std::unique_ptr<AnnGraph> graph_;
  std::vector<uint32_t> label_row_;  // graph label -> row (a loaded graph's labels are old rows)
  std::vector<uint32_t> row_label_;  // row -> graph label, valid where in_graph_
  std::vector<uint8_t> in_graph_;    // per row: the graph holds its current, active vector
  std::vector<size_t> tail_;         // each row not in the graph once (possibly inactive by now)
};

}  // namespace pc
