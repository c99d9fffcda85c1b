// An in-memory copy of one memory's head vectors (one profile), searched by exact scan.
// Not thread-safe by itself: the owner guards it (see service/vector_cache.h).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pc {

class VectorIndex {
 public:
  explicit VectorIndex(size_t dimension) : dim_(dimension) {}

  size_t dimension() const { return dim_; }
  size_t size() const { return entry_ids_.size(); }

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
  // ties by version id.
  std::vector<Hit> Nearest(const std::vector<float>& query, bool include_inactive,
                           double min_similarity, size_t k) const;

 private:
  size_t dim_;
  std::vector<float> data_;    // size() rows of dim_ floats
  std::vector<int8_t> codes_;  // the same rows quantized to int8 (scanned first: 4x less memory)
  std::vector<float> scales_;  // per row: code * scale ≈ float
  std::vector<std::string> entry_ids_, version_ids_;
  std::vector<uint8_t> active_;
  std::unordered_map<std::string, size_t> slot_;  // entry_id -> row
};

}  // namespace pc
