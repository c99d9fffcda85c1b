// Embeddings from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server, TEI):
// POST {base_url}/embeddings {"model", "input": [...]}, in batches, with a timeout and bounded
// retries. Vectors are L2-normalized here, whatever the server does.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "providers/endpoint.h"
#include "search/embedder.h"

namespace pc {

struct OpenAiEmbedderOptions {
  std::string base_url;  // e.g. http://127.0.0.1:11434/v1
  std::string model;
  std::string api_key;  // optional; sent as "Authorization: Bearer …"
  int dimension = 0;    // 0: learn it from the endpoint (at creation, or its first answer)
  int batch_size = 64;
  int timeout_seconds = 10;  // one call (a batch), retries and back-off included
  int retries = 2;  // after the first try, on transport errors, 429 and 5xx, within the timeout
};

class OpenAiEmbedder final : public Embedder {
 public:
  // Fails only when the base URL is malformed: a dead endpoint never stops start-up. With
  // dimension 0 the dimension is learned from the endpoint's first answer (serve asks it in the
  // background at start-up); until then vectors are unavailable and Unavailable() says why.
  static Result<std::unique_ptr<OpenAiEmbedder>> Create(OpenAiEmbedderOptions options);
  ~OpenAiEmbedder() override;

  EmbeddingProfile profile() const override;
  std::string Unavailable() const override;
  std::string Probe() override;
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override;
  // Usage: one request per batch, input_tokens from the answer's usage.prompt_tokens (unknown
  // when absent); an embedding has no output tokens, so output_tokens is unknown.
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                ModelUsage& usage) override;

 private:
  OpenAiEmbedder(OpenAiEmbedderOptions options, std::unique_ptr<Endpoint> http);
  Result<std::vector<std::vector<float>>> EmbedBatch(const std::vector<std::string>& texts,
                                                     ModelUsage& usage);

  OpenAiEmbedderOptions options_;
  std::unique_ptr<Endpoint> http_;
  std::atomic<int> dimension_{0};  // 0: not known yet
};

}  // namespace pc
