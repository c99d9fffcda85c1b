#include "search/hash_embedder.h"

#include <cmath>
#include <cstdint>
#include <string_view>

#include "search/stopwords.h"
#include "search/tokenizer.h"

namespace pc {
namespace {

// Feature weights: whole words and CJK bigrams carry the most, word pieces (character trigrams,
// which catch inflections like dance/dancing) and single CJK characters less.
constexpr float kWordWeight = 1.0f;
constexpr float kTrigramWeight = 0.35f;
constexpr float kBigramWeight = 1.0f;
constexpr float kCharWeight = 0.5f;

uint64_t Fnv1a(std::string_view s, uint64_t salt) {
  uint64_t h = 1469598103934665603ULL ^ salt;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  // Final avalanche (splitmix64) so nearby strings land far apart.
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

size_t CharCount(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

HashEmbedder::HashEmbedder(int dimension) {
  profile_ = EmbeddingProfile{"hash", "char-ngram-v1", dimension, "l2"};
}

std::vector<float> HashEmbedder::EmbedOne(const std::string& text) const {
  const size_t dim = static_cast<size_t>(profile_.dimension);
  std::vector<float> v(dim, 0.0f);
  auto add = [&](std::string_view feature, uint64_t salt, float weight) {
    uint64_t h = Fnv1a(feature, salt);
    float sign = (h >> 63) ? -1.0f : 1.0f;  // signed hashing keeps collisions unbiased
    v[h % dim] += sign * weight;
  };
  for (const Token& t : Tokenize(text, TokenizeMode::kDocument)) {
    if (IsCjkToken(t.text)) {
      size_t chars = CharCount(t.text);
      if (chars == 1 && !IsFunctionChar(t.text))
        add(t.text, 1, kCharWeight);
      else if (chars == 2)
        add(t.text, 2, kBigramWeight);
      continue;
    }
    if (t.colocated || IsStopWord(t.text)) continue;  // whole identifiers repeat their parts
    add(t.text, 3, kWordWeight);
    std::string padded = "#" + t.text + "#";
    if (padded.size() > 4)
      for (size_t i = 0; i + 3 <= padded.size(); ++i)
        add(std::string_view(padded).substr(i, 3), 4, kTrigramWeight);
  }
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  if (norm > 0) {
    float inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : v) x *= inv;
  }
  return v;
}

Result<std::vector<std::vector<float>>> HashEmbedder::Embed(const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  for (const std::string& t : texts) out.push_back(EmbedOne(t));
  return out;
}

}  // namespace pc
