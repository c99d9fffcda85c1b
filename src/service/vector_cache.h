// In-memory vector indexes, one per memory, kept in step with the store: loaded once from the
// vector projection, then brought forward revision by revision from the changes log, inside the
// caller's read transaction, so a search still answers from exactly its snapshot.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "search/vector_index.h"
#include "store/store.h"

namespace pc {

class VectorCache {
 public:
  // The k nearest head vectors of `profile` at `revision` (the snapshot `txn` reads). Thread-safe.
  Result<std::vector<VectorIndex::Hit>> Nearest(ReadTxn& txn, const std::string& artifact_id,
                                                int64_t revision, const std::string& profile,
                                                const std::vector<float>& query,
                                                bool include_inactive, double min_similarity,
                                                size_t k);

  // Forgets a memory's index: for changes to vectors that are not revisions (reindex).
  void Invalidate(const std::string& artifact_id);

 private:
  struct Slot {
    std::mutex mu;
    std::string profile;
    int64_t revision = -1;  // -1: not loaded
    std::unique_ptr<VectorIndex> index;
  };
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Slot>> slots_;
};

}  // namespace pc
