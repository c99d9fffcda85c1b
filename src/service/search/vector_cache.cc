#include "service/search/vector_cache.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "common/guarded.h"
#include "common/sha256.h"
#include "ops/metrics.h"

namespace pc {
namespace {

constexpr int kBuildNice =
    10;  // CFS gives a nice-10 thread ~1/10 of a core a busy request thread wants
constexpr size_t kMaxBuildThreads = 8;

// Scans the store directly: for a snapshot older than the cache (another search moved it on).
Result<std::vector<VectorIndex::Hit>> ScanStore(ReadTxn& txn, const std::string& artifact_id,
                                                const std::string& profile,
                                                const std::vector<float>& query,
                                                bool include_inactive, double min_similarity,
                                                size_t k) {
  VectorIndex scratch(query.size());
  PC_RETURN_IF_ERROR(txn.ScanVectors(artifact_id, profile, include_inactive,
                                     [&](const std::string& entry, const std::string& version,
                                         bool active, const float* v, size_t dim) {
                                       if (dim == query.size())
                                         scratch.Upsert(entry, version, active, v);
                                     }));
  return scratch.Nearest(query, include_inactive, min_similarity, k);
}

}  // namespace

VectorCache::VectorCache(VectorCacheOptions options) : options_(std::move(options)) {
  metrics_reader_ = ops::metrics().AddVectorStateReader([this] {
    const Stats st = stats();
    return ops::VectorState{static_cast<int64_t>(st.indexes),
                            static_cast<int64_t>(st.cached_vectors),
                            static_cast<int64_t>(st.graphs)};
  });
}

VectorCache::~VectorCache() {
  ops::metrics().RemoveVectorStateReader(metrics_reader_);  // first: a render may be reading it
  {
    std::lock_guard<std::mutex> lock(build_mu_);
    stopping_ = true;
  }
  build_cv_.notify_all();
  if (builder_.joinable()) builder_.join();
}

std::string VectorCache::GraphPath(const std::string& artifact_id,
                                   const std::string& profile) const {
  if (options_.ann_dir.empty()) return "";
  return (std::filesystem::path(options_.ann_dir) /
          (artifact_id + "-" + Sha256Hex(profile).substr(0, 16) + ".hnsw"))
      .string();
}

Result<std::vector<VectorIndex::Hit>> VectorCache::Nearest(
    ReadTxn& txn, const std::string& artifact_id, int64_t revision, const std::string& profile,
    const std::vector<float>& query, bool include_inactive, double min_similarity, size_t k) {
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& s = slots_[artifact_id];
    if (!s) {
      s = std::make_shared<Slot>();
      s->artifact_id = artifact_id;
    }
    slot = s;
  }
  slot->last_used = ++clock_;
  {
    // The common case: the index is at this snapshot's revision. Concurrent searches share it.
    std::shared_lock<std::shared_mutex> shared(slot->mu);
    if (slot->revision == revision && slot->profile == profile && slot->index &&
        slot->index->dimension() == query.size()) {
      auto hits = slot->index->Nearest(query, include_inactive, min_similarity, k);
      shared.unlock();
      Evict(slot);
      return hits;
    }
    if (slot->revision > revision) {  // an older snapshot than the index: read the store
      shared.unlock();
      return ScanStore(txn, artifact_id, profile, query, include_inactive, min_similarity, k);
    }
  }
  std::unique_lock<std::shared_mutex> lock(slot->mu);
  if (slot->revision > revision)
    return ScanStore(txn, artifact_id, profile, query, include_inactive, min_similarity, k);
  auto upsert = [&](const std::string& entry, const std::string& version, bool active,
                    const float* v, size_t dim) {
    if (v && dim == slot->index->dimension())
      slot->index->Upsert(entry, version, active, v);
    else
      slot->index->Remove(entry);
  };
  if (slot->revision < 0 || slot->profile != profile || slot->index->dimension() != query.size()) {
    slot->index = std::make_shared<VectorIndex>(query.size());
    slot->profile = profile;
    slot->revision = -1;
    // A saved graph first: its members say how many rows to make room for (a quarter more for
    // the writes since; room never touched costs no memory), so a million vectors load without
    // their buffers being grown, copied and zero-filled twenty times over.
    std::unique_ptr<AnnGraph> saved;
    if (std::string path = GraphPath(artifact_id, profile); !path.empty()) {
      if (auto graph = AnnGraph::Load(path, query.size()); graph.ok())
        saved = std::move(graph).value();
    }  // missing or unusable: built anew below
    if (saved) slot->index->Reserve(saved->members().size() + saved->members().size() / 4);
    PC_RETURN_IF_ERROR(txn.ScanVectors(artifact_id, profile, /*include_inactive=*/true, upsert));
    if (saved && slot->index->size() >= options_.ann_min_rows) {
      slot->index->AttachGraph(std::move(saved));
      ++graphs_loaded_;
      ops::metrics().CountVectorGraphRestored();
    }
  } else if (slot->revision < revision) {
    PC_ASSIGN_OR_RETURN(auto changed, txn.ChangedEntries(artifact_id, slot->revision, revision));
    PC_RETURN_IF_ERROR(txn.VisitVectorRows(profile, changed, upsert));
  }
  slot->revision = revision;
  SetRows(slot, slot->index->size());
  slot->has_graph = slot->index->has_graph();
  MaybeQueueBuild(slot);
  auto hits = slot->index->Nearest(query, include_inactive, min_similarity, k);
  lock.unlock();
  Evict(slot);
  return hits;
}

void VectorCache::MaybeQueueBuild(const std::shared_ptr<Slot>& slot) {
  const VectorIndex& index = *slot->index;
  if (slot->build_queued || index.size() < options_.ann_min_rows) return;
  if (index.has_graph() && index.tail_size() <= std::max(options_.ann_min_rows, index.size() / 10))
    return;
  slot->build_queued = true;
  {
    std::lock_guard<std::mutex> lock(build_mu_);
    build_queue_.push_back(slot);
    if (!builder_.joinable()) builder_ = std::thread([this] { BuildLoop(); });
  }
  build_cv_.notify_all();
}

void VectorCache::BuildLoop() {
  // Searches come first: the builds run at a lower priority (their insert threads inherit it) on
  // every core, so that they take the idle time and yield to requests (docs/benchmarks.md, scale).
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kBuildNice);
  std::unique_lock<std::mutex> lock(build_mu_);
  while (true) {
    build_cv_.wait(lock, [&] { return stopping_ || !build_queue_.empty(); });
    if (stopping_) return;
    std::shared_ptr<Slot> slot = build_queue_.front().lock();
    build_queue_.pop_front();
    if (!slot) continue;  // evicted meanwhile
    building_ = true;
    lock.unlock();
    if (!RunGuarded("a vector graph build", [&] { Build(slot); })) {
      std::unique_lock<std::shared_mutex> slot_lock(slot->mu);
      slot->build_queued = false;  // searches stay exact; a later change queues it again
    }
    lock.lock();
    building_ = false;
    build_cv_.notify_all();
  }
}

void VectorCache::Build(const std::shared_ptr<Slot>& slot) {
  std::shared_ptr<VectorIndex> index;
  std::string profile;
  VectorIndex::Snapshot snap;
  {
    std::shared_lock<std::shared_mutex> lock(slot->mu);
    index = slot->index;
    profile = slot->profile;
    snap = index->TakeSnapshot();
  }
  const size_t threads =
      std::clamp<size_t>(std::thread::hardware_concurrency(), 1, kMaxBuildThreads);
  auto graph = AnnGraph::Build(index->dimension(), snap.rows.data(), std::move(snap.members),
                               &stopping_, threads);
  snap.rows = {};
  if (graph.ok()) {
    if (std::string path = GraphPath(slot->artifact_id, profile); !path.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(options_.ann_dir, ec);
      (void)(*graph)->Save(path);  // best effort: without it the next start builds again
    }
  }
  std::unique_lock<std::shared_mutex> lock(slot->mu);
  slot->build_queued = false;
  if (!graph.ok()) return;           // stopping; or hnswlib failed, and searches stay exact
  if (slot->index != index) return;  // reloaded meanwhile (profile change, reindex)
  index->AttachGraph(std::move(graph).value());
  slot->has_graph = true;
  ++graphs_built_;
  ops::metrics().CountVectorGraphBuilt();
}

void VectorCache::WaitForBuilds() {
  std::unique_lock<std::mutex> lock(build_mu_);
  build_cv_.wait(lock, [&] { return stopping_ || (build_queue_.empty() && !building_); });
}

void VectorCache::SetRows(const std::shared_ptr<Slot>& slot, size_t rows) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t before = slot->rows.exchange(rows);
  // A slot evicted or invalidated meanwhile left the total with its rows then.
  auto it = slots_.find(slot->artifact_id);
  if (it != slots_.end() && it->second == slot) total_rows_ = total_rows_ - before + rows;
}

void VectorCache::Evict(const std::shared_ptr<Slot>& keep) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t& total = total_rows_;
  while (total > options_.max_vectors) {
    auto oldest = slots_.end();
    for (auto it = slots_.begin(); it != slots_.end(); ++it)
      if (it->second != keep &&
          (oldest == slots_.end() || it->second->last_used < oldest->second->last_used))
        oldest = it;
    if (oldest == slots_.end()) return;  // only the memory being searched is left
    total -= oldest->second->rows;
    slots_.erase(oldest);  // a search or build still using it holds its own reference
  }
}

VectorCache::Stats VectorCache::stats() {
  Stats st;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, s] : slots_) {
      const size_t rows = s->rows;
      st.indexes += rows > 0 ? 1 : 0;
      st.cached_vectors += rows;
      st.graphs += s->has_graph ? 1 : 0;
    }
  }
  st.graphs_built = graphs_built_;
  st.graphs_loaded = graphs_loaded_;
  return st;
}

void VectorCache::Invalidate(const std::string& artifact_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = slots_.find(artifact_id); it != slots_.end()) {
      total_rows_ -= it->second->rows;
      slots_.erase(it);
    }
  }
  if (options_.ann_dir.empty()) return;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(options_.ann_dir, ec))
    if (f.path().filename().string().rfind(artifact_id + "-", 0) == 0)
      std::filesystem::remove(f.path(), ec);
}

}  // namespace pc
