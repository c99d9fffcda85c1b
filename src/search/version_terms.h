// Terms of an entry version's text, kept by the version's id: a version is immutable (its text
// never changes under its id), so what a tokenizer made of it once holds for good. The reconcile
// gate compares a write with the same candidates write after write, and full text's feedback reads
// the same best hits search after search; tokenizing them again was a tenth of a remember's CPU
// and a third of feedback's (docs/benchmarks.md, docs/quality.md). Bounded (16 shards of at most
// 4,096 versions, each emptied when full: a few tens of MB at most), thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pc {

class VersionTerms {
 public:
  using Terms = std::shared_ptr<const std::vector<std::string>>;
  using Make = std::vector<std::string> (*)(std::string_view text);

  explicit VersionTerms(Make make) : make_(make) {}
  VersionTerms(const VersionTerms&) = delete;
  VersionTerms& operator=(const VersionTerms&) = delete;

  // make(text), or what it made for this id before.
  Terms Get(const std::string& entry_version_id, std::string_view text);

 private:
  static constexpr size_t kShards = 16;
  static constexpr size_t kPerShard = 4096;
  struct Shard {
    std::mutex mu;
    std::unordered_map<std::string, Terms> terms;
  };
  Make make_;
  Shard shards_[kShards];
};

}  // namespace pc
