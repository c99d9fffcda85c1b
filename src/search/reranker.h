// Rerank providers: given a query and candidate texts, a relevance score per text. Used after
// retrieval, on the hits already read from one snapshot; it changes their order only.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

class Reranker {
 public:
  virtual ~Reranker() = default;
  // One score per text, in the texts' order; higher is more relevant. Thread-safe.
  // ProviderUnavailable when the provider cannot answer.
  virtual Result<std::vector<double>> Score(const std::string& query,
                                            const std::vector<std::string>& texts) = 0;
};

}  // namespace pc
