// A circuit breaker in front of a model endpoint. After a failure the endpoint is rested: calls
// are answered at once with the failure for `rest`, instead of each paying its timeout and
// retries (a dead embedding endpoint made every remember cost ~0.6 s, a hanging one 90 s). When
// the rest is over, one call tries again; it closes the breaker if it succeeds, or rests the
// endpoint again. Writes go on meanwhile: their vectors are recorded as missing, and the
// background backfill completes them once the endpoint answers.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"
#include "ops/metrics.h"
#include "search/embedder.h"
#include "search/reranker.h"

namespace pc {

class CircuitBreaker {
 public:
  // `what` names the endpoint in messages and the log, e.g. "embedding endpoint"; `provider`, in
  // the metrics.
  CircuitBreaker(std::string what, std::chrono::milliseconds rest, ops::Provider provider);
  // Ok when a call may go through; else ProviderUnavailable saying why and for how long.
  Status Admit();
  // The outcome of an admitted call. A failure opens the breaker (logged once per outage).
  void Record(const Status& outcome);
  // Why calls are skipped now, or empty.
  std::string Resting() const;
  // `call()` (a Result) through the breaker: admitted or answered at once, its outcome recorded
  // (and counted in powercontext_provider_calls_total: a call, or skipped).
  // `outage(status)` says whether a failure rests the endpoint (by default every failure does).
  template <typename Call>
  auto Through(Call&& call) -> decltype(call()) {
    return Through(std::forward<Call>(call), [](const Status&) { return true; });
  }
  template <typename Call, typename Outage>
  auto Through(Call&& call, Outage&& outage) -> decltype(call()) {
    if (Status admitted = Admit(); !admitted.ok()) {
      ops::metrics().CountProviderSkipped(provider_);
      return admitted;
    }
    auto out = ops::MeasureProviderCall(provider_, std::forward<Call>(call));
    Record(out.ok() || !outage(out.status()) ? Status::Ok() : out.status());
    return out;
  }

 private:
  enum class State { kClosed, kOpen, kProbing };
  const std::string what_;
  const std::chrono::milliseconds rest_;
  const ops::Provider provider_;
  mutable std::mutex mu_;
  State state_ = State::kClosed;
  std::chrono::steady_clock::time_point until_{};
  std::string last_error_;
};

class ResilientEmbedder final : public Embedder {
 public:
  ResilientEmbedder(std::unique_ptr<Embedder> inner, std::chrono::milliseconds rest);
  EmbeddingProfile profile() const override { return inner_->profile(); }
  std::string Unavailable() const override;
  double convex_fusion_weight() const override { return inner_->convex_fusion_weight(); }
  // "unavailable" while resting after a failure (without asking the endpoint), else the inner's.
  std::string Probe() override {
    return breaker_.Resting().empty() ? inner_->Probe() : "unavailable";
  }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) override;
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                ModelUsage& usage) override;

 private:
  std::unique_ptr<Embedder> inner_;
  CircuitBreaker breaker_;
};

class ResilientReranker final : public Reranker {
 public:
  ResilientReranker(std::unique_ptr<Reranker> inner, std::chrono::milliseconds rest);
  Result<std::vector<double>> Score(const std::string& query,
                                    const std::vector<std::string>& texts) override;

 private:
  std::unique_ptr<Reranker> inner_;
  CircuitBreaker breaker_;
};

}  // namespace pc
