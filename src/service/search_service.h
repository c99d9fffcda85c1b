// POST /v1/memory/search (DESIGN §4, invariants 9–10): full-text, vector and hybrid retrieval over
// one revision snapshot of a scope's memory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "store/store.h"

namespace pc {

enum class SearchMode { kFts, kVector, kHybrid, kAuto };
const char* SearchModeName(SearchMode m);
Result<SearchMode> ParseSearchMode(const std::string& s);

inline constexpr int kDefaultSearchLimit = 10;
inline constexpr int kMaxSearchLimit = 100;
inline constexpr size_t kMaxQueryBytes = 4096;

struct SearchRequest {
  std::string scope_id;
  std::string query;
  SearchMode mode = SearchMode::kAuto;
  int limit = kDefaultSearchLimit;
  bool include_inactive = false;
  std::optional<double> min_similarity;
};

struct SearchHit {
  ManifestItem item;
  double score = 0;
  std::vector<std::string> matched_by;  // "fts", "vector"
};

struct SearchResult {
  SearchMode mode_used = SearchMode::kFts;
  MemoryRef memory;  // the revision searched; every hit's citation is at it
  std::vector<SearchHit> hits;
};

class SearchService {
 public:
  explicit SearchService(Store& store) : store_(store) {}

  // Thread-safe. An explicit vector or hybrid search without the capability is
  // CapabilityUnavailable; auto falls back to fts and says so in mode_used.
  Result<SearchResult> Search(const SearchRequest& req);

 private:
  Store& store_;
};

}  // namespace pc
