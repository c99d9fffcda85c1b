// In-memory vector indexes, one per memory, kept in step with the store: loaded once from the
// vector projection, then brought forward revision by revision from the changes log, inside the
// caller's read transaction, so a search still answers from exactly its snapshot.
//
// A memory of at least `ann_min_rows` vectors also gets an approximate graph (hnswlib), built in
// the background (one build at a time, inserting from every core at a lower priority than
// requests) from a copy of its vectors while searches go on exactly; rebuilt when the
// vectors changed since (searched exactly beside it) pass a tenth of the memory. With an
// `ann_dir`, each graph is saved there and loaded with the vectors after a restart instead of
// being rebuilt; a saved graph is a cache, checked vector by vector against the store.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "search/vector_index.h"
#include "store/store.h"

namespace pc {

// Holds at most this many vectors in all: loading a memory past that evicts the least recently
// searched others (they reload on their next vector search).
inline constexpr size_t kMaxCachedVectors = 1000000;  // ~1.9 GB at 384 dimensions (float + int8)
// Below this many vectors a memory is scanned exactly: the int8 scan costs ~0.1 µs a vector
// (0.5 ms here), and a graph costs ~0.5 ms a vector to build (bench/search_bench).
inline constexpr size_t kAnnMinRows = 5000;

struct VectorCacheOptions {
  size_t max_vectors = kMaxCachedVectors;
  size_t ann_min_rows = kAnnMinRows;
  std::string ann_dir;  // where graphs are saved; empty: never saved
};

class VectorCache {
 public:
  // Reports its state in the process's metrics (powercontext_vector_* gauges) while it lives.
  explicit VectorCache(VectorCacheOptions options = {});
  ~VectorCache();  // stops a build in progress

  // The k nearest head vectors of `profile` at `revision` (the snapshot `txn` reads). Thread-safe.
  Result<std::vector<VectorIndex::Hit>> Nearest(ReadTxn& txn, const std::string& artifact_id,
                                                int64_t revision, const std::string& profile,
                                                const std::vector<float>& query,
                                                bool include_inactive, double min_similarity,
                                                size_t k);

  // Forgets a memory's index and saved graphs: for changes to vectors that are not revisions
  // (reindex).
  void Invalidate(const std::string& artifact_id);

  struct Stats {
    size_t indexes = 0;         // memories with vectors in memory
    size_t cached_vectors = 0;  // over all memories
    size_t graphs = 0;          // memories searched through a graph
    size_t graphs_built = 0;    // since start
    size_t graphs_loaded = 0;   // from ann_dir, since start
  };
  Stats stats();
  // Waits until no graph build is queued or running (benchmarks and tests).
  void WaitForBuilds();

 private:
  // A memory's index. Searches at the revision it holds share `mu` (they only read the index, and
  // hnswlib's searches may run concurrently); bringing it to a newer revision, loading it and
  // attaching a graph take it exclusively.
  struct Slot {
    std::shared_mutex mu;
    std::string artifact_id, profile;
    int64_t revision = -1;  // -1: not loaded
    std::shared_ptr<VectorIndex> index;
    bool build_queued = false;
    std::atomic<size_t> rows{0};  // index size, readable without the slot's lock
    std::atomic<bool> has_graph{false};
    std::atomic<uint64_t> last_used{0};
  };
  std::string GraphPath(const std::string& artifact_id, const std::string& profile) const;
  // Called with the slot locked after it is brought to a revision.
  void MaybeQueueBuild(const std::shared_ptr<Slot>& slot);
  void BuildLoop();
  void Build(const std::shared_ptr<Slot>& slot);
  // Drops least recently used slots (never `keep`) until the total fits: O(1) under mu_ while it
  // fits, so a search of one memory never walks the others.
  void Evict(const std::shared_ptr<Slot>& keep);
  // Sets a slot's size and the total with it (the slot is locked exclusively by the caller).
  void SetRows(const std::shared_ptr<Slot>& slot, size_t rows);

  const VectorCacheOptions options_;
  std::atomic<uint64_t> clock_{0};
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Slot>> slots_;
  size_t total_rows_ = 0;  // the rows of the slots in slots_ (under mu_)

  // The builder: one thread, started on first need.
  std::mutex build_mu_;
  std::condition_variable build_cv_;
  std::deque<std::weak_ptr<Slot>> build_queue_;
  bool building_ = false;
  std::atomic<bool> stopping_{false};
  std::thread builder_;
  std::atomic<size_t> graphs_built_{0}, graphs_loaded_{0};
  uint64_t metrics_reader_ = 0;  // its id in ops::metrics()
};

}  // namespace pc
