#include "service/vector_cache.h"

namespace pc {
namespace {

// Scans the store directly: for a snapshot older than the cache (another search moved it on).
Result<std::vector<VectorIndex::Hit>> ScanStore(ReadTxn& txn, const std::string& artifact_id,
                                                const std::string& profile,
                                                const std::vector<float>& query,
                                                bool include_inactive, double min_similarity,
                                                size_t k) {
  VectorIndex scratch(query.size());
  PC_RETURN_IF_ERROR(txn.ScanVectors(
      artifact_id, profile, include_inactive,
      [&](const std::string& entry, const std::string& version, bool active, const float* v, size_t dim) {
        if (dim == query.size()) scratch.Upsert(entry, version, active, v);
      }));
  return scratch.Nearest(query, include_inactive, min_similarity, k);
}

}  // namespace

Result<std::vector<VectorIndex::Hit>> VectorCache::Nearest(
    ReadTxn& txn, const std::string& artifact_id, int64_t revision, const std::string& profile,
    const std::vector<float>& query, bool include_inactive, double min_similarity, size_t k) {
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& s = slots_[artifact_id];
    if (!s) s = std::make_shared<Slot>();
    slot = s;
  }
  slot->last_used = ++clock_;
  std::unique_lock<std::mutex> lock(slot->mu);
  if (slot->revision > revision)
    return ScanStore(txn, artifact_id, profile, query, include_inactive, min_similarity, k);
  auto upsert = [&](const std::string& entry, const std::string& version, bool active,
                    const float* v, size_t dim) {
    if (v && dim == slot->index->dimension()) slot->index->Upsert(entry, version, active, v);
    else slot->index->Remove(entry);
  };
  if (slot->revision < 0 || slot->profile != profile || slot->index->dimension() != query.size()) {
    slot->index = std::make_unique<VectorIndex>(query.size());
    slot->profile = profile;
    slot->revision = -1;
    PC_RETURN_IF_ERROR(txn.ScanVectors(artifact_id, profile, /*include_inactive=*/true, upsert));
  } else if (slot->revision < revision) {
    PC_ASSIGN_OR_RETURN(auto changed, txn.ChangedEntries(artifact_id, slot->revision, revision));
    PC_RETURN_IF_ERROR(txn.VisitVectorRows(profile, changed, upsert));
  }
  slot->revision = revision;
  slot->rows = slot->index->size();
  auto hits = slot->index->Nearest(query, include_inactive, min_similarity, k);
  lock.unlock();
  Evict(slot);
  return hits;
}

void VectorCache::Evict(const std::shared_ptr<Slot>& keep) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t total = 0;
  for (const auto& [id, s] : slots_) total += s->rows;
  while (total > max_vectors_) {
    auto oldest = slots_.end();
    for (auto it = slots_.begin(); it != slots_.end(); ++it)
      if (it->second != keep && (oldest == slots_.end() || it->second->last_used < oldest->second->last_used))
        oldest = it;
    if (oldest == slots_.end()) return;  // only the memory being searched is left
    total -= oldest->second->rows;
    slots_.erase(oldest);  // a search still using it holds its own reference
  }
}

size_t VectorCache::cached_vectors() {
  std::lock_guard<std::mutex> lock(mu_);
  size_t total = 0;
  for (const auto& [id, s] : slots_) total += s->rows;
  return total;
}

void VectorCache::Invalidate(const std::string& artifact_id) {
  std::lock_guard<std::mutex> lock(mu_);
  slots_.erase(artifact_id);
}

}  // namespace pc
