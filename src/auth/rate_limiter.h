// Per-token request rate (issue 14): a token bucket per principal name. `rate` requests a second
// on average, bursts of up to `burst`. Thread-safe; the map is bounded (idle buckets that have
// refilled are dropped), so a stream of names cannot grow it without limit.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace pc {

class RateLimiter {
 public:
  RateLimiter(double rate_per_second, double burst) : rate_(rate_per_second), burst_(burst) {}
  bool enabled() const { return rate_ > 0; }
  // 0 when the request may go ahead (and is counted); otherwise how many seconds until it may
  // (for Retry-After, at least 1).
  // `n` requests at once (an MCP batch is one HTTP request of many calls): all or none.
  int Take(const std::string& who, int n = 1);
  int TakeAt(const std::string& who, std::chrono::steady_clock::time_point now, int n = 1);

 private:
  struct Bucket {
    double tokens;
    std::chrono::steady_clock::time_point at;
  };
  static constexpr size_t kMaxBuckets = 10000;
  double rate_, burst_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace pc
