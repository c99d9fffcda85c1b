#include "store/sqlite/common_phrases.h"

#include "store/sqlite/sqlite_txn.h"

namespace pc::sqlite {

std::string CommonPhrases::KeyOf(const TextIndex& index, const std::string& phrase) {
  return std::to_string(static_cast<int>(index.kind)) + ":" + std::to_string(index.owner) + ":" +
         phrase;
}

bool CommonPhrases::Known(const TextIndex& index, const std::string& phrase, int64_t cap) const {
  const std::string key = KeyOf(index, phrase);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = seen_.find(key);
  return it != seen_.end() && it->second.removed == index.removed &&
         it->second.docs <= index.docs && it->second.cap >= cap;
}

void CommonPhrases::Remember(const TextIndex& index, const std::string& phrase, int64_t cap) {
  std::string key = KeyOf(index, phrase);
  std::lock_guard<std::mutex> lock(mu_);
  if (seen_.size() >= kCapacity && !seen_.count(key)) seen_.clear();
  seen_[std::move(key)] = Seen{index.removed, index.docs, cap};
}

}  // namespace pc::sqlite
