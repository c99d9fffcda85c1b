#include "store/sqlite/gate_reads.h"

#include <algorithm>
#include <utility>

namespace pc::sqlite {

void GateReads::Distinct(std::vector<std::string>& tokens) {
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
}

const std::vector<int64_t>* GateReads::Find(const std::string& token, size_t cap) const {
  auto it = lists_.find(token);
  return it != lists_.end() && it->second.cap == cap ? &it->second.rows : nullptr;
}

void GateReads::Put(const std::string& token, size_t cap, std::vector<int64_t> rows) {
  if (cap == 0 || rows.size() > cap) return;
  std::sort(rows.begin(), rows.end());
  if (auto it = lists_.find(token); it != lists_.end()) {
    listed_ -= it->second.rows.size();
    lists_.erase(it);
  }
  if (listed_ + (lists_.size() + 1) * kTokenCost + rows.size() > kMaxListed) {
    lists_.clear();
    listed_ = 0;
  }
  listed_ += rows.size();
  lists_[token] = List{cap, std::move(rows)};
}

const ManifestItem* GateReads::FindRow(int64_t row) const {
  auto it = rows_.find(row);
  return it == rows_.end() ? nullptr : &it->second;
}

// What a kept row costs: its strings' bytes, and the item and its map node.
size_t GateReads::RowBytes(const ManifestItem& item) {
  const EntryVersion& v = item.version;
  size_t bytes = sizeof(ManifestItem) + 64 + v.entry_version_id.size() + v.entry_id.size() +
                 v.previous_version_id.value_or("").size() + v.kind.size() + v.text.size() +
                 v.content_hash.size() + v.reason.size();
  for (const std::string& ref : v.source_refs) bytes += sizeof(std::string) + ref.size();
  return bytes;
}

void GateReads::PutRow(int64_t row, const ManifestItem& item) {
  ForgetRow(row);
  const size_t bytes = RowBytes(item);
  if (row_bytes_ + bytes > kMaxRowBytes) {
    rows_.clear();
    row_bytes_ = 0;
  }
  rows_.emplace(row, item);
  row_bytes_ += bytes;
}

void GateReads::ForgetRow(int64_t row) {
  if (auto it = rows_.find(row); it != rows_.end()) {
    row_bytes_ -= RowBytes(it->second);
    rows_.erase(it);
  }
}

void GateReads::Added(std::vector<std::string> tokens, int64_t row) {
  Follow(std::move(tokens), row, true);
}

void GateReads::Removed(std::vector<std::string> tokens, int64_t row) {
  Follow(std::move(tokens), row, false);
}

void GateReads::Follow(std::vector<std::string> tokens, int64_t row, bool added) {
  ForgetRow(row);
  if (lists_.empty()) return;
  Distinct(tokens);
  for (const std::string& token : tokens) {
    auto it = lists_.find(token);
    if (it == lists_.end()) continue;
    std::vector<int64_t>& rows = it->second.rows;
    const bool full = rows.size() >= it->second.cap;
    auto at = std::lower_bound(rows.begin(), rows.end(), row);
    const bool listed = at != rows.end() && *at == row;
    if (added && !listed && !full) {  // every active row is here: one more
      rows.insert(at, row);
      ++listed_;
    } else if (added && !listed && at != rows.end()) {  // among the first `cap`: the last is not
      rows.insert(at, row);
      rows.pop_back();
    } else if (!added && listed && !full) {
      rows.erase(at);
      --listed_;
    } else if (!added && listed) {  // the row after the last is not known: read again when needed
      listed_ -= rows.size();
      lists_.erase(it);
    }
  }
}

void GateReads::Clear() {
  lists_.clear();
  listed_ = 0;
  rows_.clear();
  row_bytes_ = 0;
}

}  // namespace pc::sqlite
