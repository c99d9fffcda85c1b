// Listwise reranking by the configured chat model (upstream RFC 0080, policy
// powercontext.memory.rerank.listwise.v1): one request shows the model the query and the first
// kListwiseCandidates candidates, numbered, each text cut to kListwiseCandidateBytes; the model
// answers only {"ranking": [numbers]}, most useful first. The answer picks positions, never hits:
// the caller's hits keep their identity and citations; only their order changes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "extract/extractor.h"
#include "search/reranker.h"

namespace pc {

inline constexpr const char* kListwisePolicy = "powercontext.memory.rerank.listwise.v1";
// RFC 0080's coarse pool: the model compares at most this many candidates in one request.
inline constexpr size_t kListwiseCandidates = 30;
// Each candidate's text as the model sees it, at most (30 × 1 KiB keeps a prompt near 8k tokens).
inline constexpr size_t kListwiseCandidateBytes = 1024;

// The final order of `count` candidates (0-based positions) from the model's answer, of which the
// model was shown the first `shown`: the numbers it ranked (1-based, first occurrence, in its
// order), then every other candidate in its original order. Unknown, duplicate and out-of-range
// numbers (and anything not an integer) are dropped. ProviderError, saying why, when the answer is
// not {"ranking": [...]} or names no shown candidate: never a silent fallback to the coarse order.
Result<std::vector<size_t>> ParseListwiseOrder(const std::string& answer, size_t shown,
                                               size_t count);

class ChatReranker final : public Reranker {
 public:
  // `chat`: the configured chat model (an OpenAI-compatible /chat/completions client).
  explicit ChatReranker(std::unique_ptr<Extractor> chat) : chat_(std::move(chat)) {}
  // One score per text: (n - p) / n for the text placed at position p of n (1 for the first), so a
  // stable sort by score gives ParseListwiseOrder's order. Every failure is ProviderUnavailable
  // ("rerank unavailable: " and the reason): the model's, or an answer without a usable ranking.
  // Thread-safe (the chat client is).
  Result<std::vector<double>> Score(const std::string& query,
                                    const std::vector<std::string>& texts) override;
  // An unusable answer is not an outage: the model answered, and the next query may do well.
  bool IsOutage(const Status& failure) const override;

  // The request the model is given for `query` and `texts` (exposed for tests).
  static ExtractionRequest BuildRequest(const std::string& query,
                                        const std::vector<std::string>& texts);

 private:
  std::unique_ptr<Extractor> chat_;
};

}  // namespace pc
