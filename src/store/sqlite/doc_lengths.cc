#include "store/sqlite/doc_lengths.h"

namespace pc::sqlite {

bool DocLengths::Index::Find(int64_t rowid, int& length) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = lengths_.find(rowid);
  if (it == lengths_.end()) return false;
  length = it->second;
  return true;
}

void DocLengths::Index::Add(int64_t rowid, int length) {
  bool added = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    added = lengths_.emplace(rowid, length).second;
  }
  if (added) owner_->Grew();
}

std::shared_ptr<DocLengths::Index> DocLengths::For(int kind, int64_t owner, int64_t removed) {
  std::lock_guard<std::mutex> lock(mu_);
  Kept& kept = kept_[{kind, owner}];
  if (!kept.index || kept.removed < removed) {
    kept.removed = removed;
    kept.index.reset(new Index(this));
  }
  return kept.removed == removed ? kept.index : nullptr;
}

size_t DocLengths::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [key, kept] : kept_) {
    std::lock_guard<std::mutex> index_lock(kept.index->mu_);
    n += kept.index->lengths_.size();
  }
  return n;
}

void DocLengths::Grew() {
  if (size_.fetch_add(1) + 1 < kCapacity) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (size_.load() < kCapacity) return;  // another thread forgot them first
  kept_.clear();
  size_ = 0;
}

}  // namespace pc::sqlite
