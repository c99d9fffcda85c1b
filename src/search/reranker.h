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
  // Whether a failure of Score says the provider is down (the circuit breaker then rests it), or
  // only that this answer was unusable: the queries and texts are untrusted, and one that makes a
  // model answer badly must not switch rerank off for everybody.
  virtual bool IsOutage(const Status& failure) const {
    (void)failure;
    return true;
  }
};

}  // namespace pc
