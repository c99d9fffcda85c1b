#include "providers/resilient.h"

#include <iostream>

namespace pc {

using Clock = std::chrono::steady_clock;

CircuitBreaker::CircuitBreaker(std::string what, std::chrono::milliseconds rest,
                               ops::Provider provider)
    : what_(std::move(what)), rest_(rest), provider_(provider) {}

Status CircuitBreaker::Admit() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kClosed) return Status::Ok();
  const auto now = Clock::now();
  if (state_ == State::kOpen && now >= until_) {
    state_ = State::kProbing;  // this call tries the endpoint again; the others keep skipping
    return Status::Ok();
  }
  const auto left = std::chrono::duration_cast<std::chrono::seconds>(until_ - now).count();
  return Status(Code::kProviderUnavailable,
                what_ + " failed (" + last_error_ + "); it is rested" +
                    (state_ == State::kProbing
                         ? std::string(" while one call tries it again")
                         : " for " + std::to_string(std::max<int64_t>(left, 1)) + " s more"));
}

void CircuitBreaker::Record(const Status& outcome) {
  std::lock_guard<std::mutex> lock(mu_);
  if (outcome.ok()) {
    if (state_ != State::kClosed)
      std::cerr << "powercontext: " << what_ << " answers again" << std::endl;
    state_ = State::kClosed;
    return;
  }
  if (state_ == State::kClosed)
    std::cerr << "powercontext: warning: " << what_ << " failed (" << outcome.message()
              << "); skipping it for " << rest_.count()
              << " ms (writes keep their vectors missing for the backfill)" << std::endl;
  state_ = State::kOpen;
  until_ = Clock::now() + rest_;
  last_error_ = outcome.message();
}

std::string CircuitBreaker::Resting() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kClosed || (state_ == State::kOpen && Clock::now() >= until_)) return "";
  return what_ + " failed moments ago (" + last_error_ + "); it is rested and tried again shortly";
}

ResilientEmbedder::ResilientEmbedder(std::unique_ptr<Embedder> inner,
                                     std::chrono::milliseconds rest)
    : inner_(std::move(inner)), breaker_("embedding endpoint", rest, ops::Provider::kEmbed) {}

std::string ResilientEmbedder::Unavailable() const {
  std::string resting = breaker_.Resting();
  return resting.empty() ? inner_->Unavailable() : resting;
}

Result<std::vector<std::vector<float>>> ResilientEmbedder::Embed(
    const std::vector<std::string>& texts) {
  return breaker_.Through([&] { return inner_->Embed(texts); });
}

Result<std::vector<std::vector<float>>> ResilientEmbedder::Embed(
    const std::vector<std::string>& texts, ModelUsage& usage) {
  return breaker_.Through([&] { return inner_->Embed(texts, usage); });
}

ResilientReranker::ResilientReranker(std::unique_ptr<Reranker> inner,
                                     std::chrono::milliseconds rest)
    : inner_(std::move(inner)), breaker_("rerank endpoint", rest, ops::Provider::kRerank) {}

Result<std::vector<double>> ResilientReranker::Score(const std::string& query,
                                                     const std::vector<std::string>& texts) {
  return breaker_.Through([&] { return inner_->Score(query, texts); },
                          [&](const Status& failure) { return inner_->IsOutage(failure); });
}

}  // namespace pc
