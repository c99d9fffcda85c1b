// Model extraction (DESIGN §3): the request a model is given, and the small interface every
// extraction provider implements (providers/: an OpenAI-compatible chat endpoint, or a local
// command). The model's answer is an untrusted candidate: extract/operations.h validates it.
#pragma once

#include <string>

#include "common/status.h"
#include "model/stats.h"

namespace pc {

struct ExtractionRequest {
  std::string prompt_version;  // e.g. "extract_v3" (prompts/extract_v3.md)
  std::string instructions;    // the prompt: what to keep, and the answer's format
  std::string input_json;      // {"sources": [{"id": "S1", …}], "entries": [{"id": "E1", …}]}
  std::string output_schema;   // JSON Schema of the answer, for endpoints that enforce one
};

class Extractor {
 public:
  virtual ~Extractor() = default;
  // What answered, for revisions' actor: "openai/<model>", "command".
  virtual std::string name() const = 0;
  // Readiness (GET /health/ready): "ready", "unavailable", "timeout" or "misconfigured", asking the
  // provider something that costs no tokens. A local command is ready.
  virtual std::string Probe() { return "ready"; }
  // The model's answer text. ProviderUnavailable: unreachable, or no answer within the timeout;
  // ProviderError: it answered, but not usably (an HTTP error, a malformed envelope, a failed
  // command). Thread-safe.
  virtual Result<std::string> Extract(const ExtractionRequest& request) = 0;
  // The same, adding to `usage` what the provider reported for a successful answer (nothing on
  // failure). The default (a local command) counts one request with unknown token counts.
  virtual Result<std::string> Extract(const ExtractionRequest& request, ModelUsage& usage) {
    auto out = Extract(request);
    if (out.ok()) usage.AddCall(std::nullopt, std::nullopt);
    return out;
  }
};

}  // namespace pc
