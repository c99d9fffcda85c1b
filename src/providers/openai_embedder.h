// Embeddings from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server, TEI):
// POST {base_url}/embeddings {"model", "input": [...]}, in batches, with a timeout and bounded
// retries. Vectors are L2-normalized here, whatever the server does.
#pragma once

#include <memory>
#include <string>

#include "providers/endpoint.h"
#include "search/embedder.h"

namespace pc {

struct OpenAiEmbedderOptions {
  std::string base_url;  // e.g. http://127.0.0.1:11434/v1
  std::string model;
  std::string api_key;   // optional; sent as "Authorization: Bearer …"
  int dimension = 0;     // 0: learn it from the endpoint at creation
  int batch_size = 64;
  int timeout_seconds = 30;
  int retries = 2;       // after the first try, on transport errors, 429 and 5xx
};

class OpenAiEmbedder final : public Embedder {
 public:
  // Fails when the base URL is malformed, or the dimension is 0 and the endpoint cannot be asked.
  static Result<std::unique_ptr<OpenAiEmbedder>> Create(OpenAiEmbedderOptions options);
  ~OpenAiEmbedder() override;

  const EmbeddingProfile& profile() const override { return profile_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override;

 private:
  OpenAiEmbedder(OpenAiEmbedderOptions options, std::unique_ptr<Endpoint> http);
  Result<std::vector<std::vector<float>>> EmbedBatch(const std::vector<std::string>& texts);

  OpenAiEmbedderOptions options_;
  std::unique_ptr<Endpoint> http_;
  EmbeddingProfile profile_;
};

}  // namespace pc
