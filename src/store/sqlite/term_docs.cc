#include "store/sqlite/term_docs.h"

#include <algorithm>

namespace pc::sqlite {
namespace {

void Distinct(std::vector<std::string>& tokens) {
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
}

}  // namespace

const std::vector<int64_t>* TermDocs::Find(const std::string& token, size_t cap) const {
  auto it = docs_.find(token);
  return it != docs_.end() && it->second.cap == cap ? &it->second.rows : nullptr;
}

void TermDocs::Put(const std::string& token, size_t cap, std::vector<int64_t> rows) {
  if (cap == 0 || rows.size() > cap) return;
  std::sort(rows.begin(), rows.end());
  if (auto it = docs_.find(token); it != docs_.end()) {
    rows_ -= it->second.rows.size();
    docs_.erase(it);
  }
  if (rows_ + (docs_.size() + 1) * kTokenCost + rows.size() > kMaxRows) Clear();
  rows_ += rows.size();
  docs_[token] = Docs{cap, std::move(rows)};
}

void TermDocs::Added(std::vector<std::string> tokens, int64_t row) {
  if (docs_.empty()) return;
  Distinct(tokens);
  for (const std::string& token : tokens) {
    auto it = docs_.find(token);
    if (it == docs_.end()) continue;
    std::vector<int64_t>& rows = it->second.rows;
    auto at = std::lower_bound(rows.begin(), rows.end(), row);
    if (at != rows.end() && *at == row) continue;
    if (rows.size() < it->second.cap) {  // every active row is here: one more
      rows.insert(at, row);
      ++rows_;
    } else if (at != rows.end()) {  // among the first `cap`: the last is no longer
      rows.insert(at, row);
      rows.pop_back();
    }
  }
}

void TermDocs::Removed(std::vector<std::string> tokens, int64_t row) {
  if (docs_.empty()) return;
  Distinct(tokens);
  for (const std::string& token : tokens) {
    auto it = docs_.find(token);
    if (it == docs_.end()) continue;
    std::vector<int64_t>& rows = it->second.rows;
    auto at = std::lower_bound(rows.begin(), rows.end(), row);
    if (at == rows.end() || *at != row) continue;
    if (rows.size() < it->second.cap) {
      rows.erase(at);
      --rows_;
    } else {  // the row after the last is not known: read the token again when next needed
      rows_ -= rows.size();
      docs_.erase(it);
    }
  }
}

void TermDocs::Clear() {
  docs_.clear();
  rows_ = 0;
}

}  // namespace pc::sqlite
