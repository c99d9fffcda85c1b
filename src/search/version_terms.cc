#include "search/version_terms.h"

namespace pc {

VersionTerms::Terms VersionTerms::Get(const std::string& entry_version_id, std::string_view text) {
  Shard& shard = shards_[std::hash<std::string>{}(entry_version_id) % kShards];
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    if (auto it = shard.terms.find(entry_version_id); it != shard.terms.end()) return it->second;
  }
  auto made = std::make_shared<const std::vector<std::string>>(make_(text));
  std::lock_guard<std::mutex> lock(shard.mu);
  if (shard.terms.size() >= kPerShard) shard.terms.clear();
  shard.terms.emplace(entry_version_id, made);
  return made;
}

}  // namespace pc
