// The built-in offline embedder: hashed features into a fixed dimension (the "hashing trick").
// Honest about what it is: lexical similarity — shared words, word pieces and characters — not
// meaning. "car" and "automobile" are unrelated to it.
#pragma once

#include "search/embedder.h"

namespace pc {

inline constexpr int kDefaultHashDimension = 384;

class HashEmbedder final : public Embedder {
 public:
  explicit HashEmbedder(int dimension = kDefaultHashDimension);
  EmbeddingProfile profile() const override { return profile_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override;

  std::vector<float> EmbedOne(const std::string& text) const;

 private:
  EmbeddingProfile profile_;
};

}  // namespace pc
