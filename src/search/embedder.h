// Embedding providers behind one small interface. A profile names exactly what produced a vector
// (provider, model, dimension, normalization); vectors of different profiles are never compared.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "model/stats.h"

namespace pc {

struct EmbeddingProfile {
  std::string provider;  // "hash", "static", "openai"
  std::string model;
  int dimension = 0;
  std::string normalization = "l2";

  // The stored form, e.g. "hash/char-ngram-v1/384/l2".
  std::string Key() const {
    return provider + "/" + model + "/" + std::to_string(dimension) + "/" + normalization;
  }
};

class Embedder {
 public:
  virtual ~Embedder() = default;
  // What this embedder's vectors are. The dimension may be 0 (unknown) until an endpoint that was
  // down at start-up first answers. Thread-safe.
  virtual EmbeddingProfile profile() const = 0;
  // Why Embed would fail at once now (an endpoint resting after a failure, a dimension not yet
  // learned), or empty. For capabilities; Embed itself always answers.
  virtual std::string Unavailable() const { return ""; }
  // Readiness (GET /health/ready): "ready", "unavailable", "timeout" or "misconfigured", asking the
  // provider something that costs no tokens. A local embedder is always ready.
  virtual std::string Probe() { return "ready"; }
  // How hybrid search fuses this embedder's ranking with fts's when no graph joins them: 0, RRF
  // (the default); above 0, the convex combination of the two lists' normalized scores with this
  // weight on the vector side (search/fusion.h, FuseConvex).
  virtual double convex_fusion_weight() const { return 0; }
  // One unit-length vector of profile().dimension per text, in order (or all zeros for a text the
  // embedder cannot place, e.g. a language its vectors lack: similar to nothing). Thread-safe.
  // ProviderUnavailable when the provider cannot answer.
  virtual Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) = 0;
  // The same, adding to `usage` what a model provider reported for a successful result (its
  // answered requests and token counts; nothing on failure). The default, for a local embedder
  // that asks no model (the offline hash embedder), reports nothing.
  virtual Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                        ModelUsage& usage) {
    (void)usage;
    return Embed(texts);
  }
};

}  // namespace pc
