// In-memory vector indexes, one per memory, kept in step with the store: loaded once from the
// vector projection, then brought forward revision by revision from the changes log, inside the
// caller's read transaction, so a search still answers from exactly its snapshot.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "search/vector_index.h"
#include "store/store.h"

namespace pc {

// Holds at most kMaxCachedVectors vectors in all: loading a memory past that evicts the least
// recently searched others (they reload on their next vector search).
inline constexpr size_t kMaxCachedVectors = 1000000;  // ~1.9 GB at 384 dimensions (float + int8)

class VectorCache {
 public:
  explicit VectorCache(size_t max_vectors = kMaxCachedVectors) : max_vectors_(max_vectors) {}

  // The k nearest head vectors of `profile` at `revision` (the snapshot `txn` reads). Thread-safe.
  Result<std::vector<VectorIndex::Hit>> Nearest(ReadTxn& txn, const std::string& artifact_id,
                                                int64_t revision, const std::string& profile,
                                                const std::vector<float>& query,
                                                bool include_inactive, double min_similarity,
                                                size_t k);

  // Forgets a memory's index: for changes to vectors that are not revisions (reindex).
  void Invalidate(const std::string& artifact_id);
  // Vectors held now, over all memories.
  size_t cached_vectors();

 private:
  struct Slot {
    std::mutex mu;
    std::string profile;
    int64_t revision = -1;  // -1: not loaded
    std::unique_ptr<VectorIndex> index;
    std::atomic<size_t> rows{0};       // index size, readable without the slot's lock
    std::atomic<uint64_t> last_used{0};
  };
  // Drops least recently used slots (never `keep`) until the total fits.
  void Evict(const std::shared_ptr<Slot>& keep);
  std::atomic<uint64_t> clock_{0};
  const size_t max_vectors_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Slot>> slots_;
};

}  // namespace pc
