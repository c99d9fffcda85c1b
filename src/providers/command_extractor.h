// Extraction through a local program (any local model or agent CLI): runs `command` with
// /bin/sh -c, writes the request as JSON to its stdin — {"prompt_version", "instructions",
// "input", "output_schema"} — and reads the answer (the operations JSON, docs/extraction.md)
// from its stdout. A non-zero exit is a provider error; no exit within the timeout kills it.
#pragma once

#include <memory>
#include <string>

#include "extract/extractor.h"

namespace pc {

struct CommandExtractorOptions {
  std::string command;
  int timeout_seconds = 120;
  size_t max_output_bytes = 4 * 1024 * 1024;
};

class CommandExtractor final : public Extractor {
 public:
  explicit CommandExtractor(CommandExtractorOptions options) : options_(std::move(options)) {}
  std::string name() const override { return "command"; }
  Result<std::string> Extract(const ExtractionRequest& request) override;

 private:
  // Extract without its metrics: one run of the command.
  Result<std::string> Run(const ExtractionRequest& request);
  CommandExtractorOptions options_;
};

}  // namespace pc
