// Extraction through any OpenAI-compatible POST {base_url}/chat/completions (OpenAI, Ollama, vLLM,
// llama.cpp server, LM Studio): the prompt as the system message, the window as the user message,
// temperature 0, and the answer's JSON Schema as response_format where the endpoint takes it —
// an endpoint that refuses json_schema (HTTP 400) is asked for plain JSON from then on. Bounded
// retries with backoff on connection errors, 429 and 5xx, all within one timeout.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "extract/extractor.h"
#include "providers/endpoint.h"

namespace pc {

struct OpenAiChatOptions {
  std::string base_url;
  std::string model;
  std::string api_key;
  int timeout_seconds = 120;  // the whole call: attempts and back-off
  int retries = 2;
  // Counted in the provider metrics as an extraction; false when a wrapper counts the call as
  // something else (the chat rerank, under "rerank").
  bool measured_as_extraction = true;
};

class OpenAiChatExtractor final : public Extractor {
 public:
  static Result<std::unique_ptr<OpenAiChatExtractor>> Create(OpenAiChatOptions options);
  std::string name() const override { return "openai/" + options_.model; }
  std::string Probe() override { return http_->Probe(); }
  Result<std::string> Extract(const ExtractionRequest& request) override;
  // Usage: one request, usage.prompt_tokens / usage.completion_tokens of the answer (each unknown
  // when absent).
  Result<std::string> Extract(const ExtractionRequest& request, ModelUsage& usage) override;

 private:
  OpenAiChatExtractor(OpenAiChatOptions options, std::unique_ptr<Endpoint> http)
      : options_(std::move(options)), http_(std::move(http)) {}
  // Extract without its metrics: every attempt within one deadline.
  Result<std::string> Ask(const ExtractionRequest& request, ModelUsage& usage);
  Result<HttpAnswer> Post(const ExtractionRequest& request, bool with_schema,
                          Endpoint::Deadline deadline);
  OpenAiChatOptions options_;
  std::unique_ptr<Endpoint> http_;
  std::atomic<bool> schema_refused_{false};
};

}  // namespace pc
