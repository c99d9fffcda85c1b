#include "auth/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace pc {

int RateLimiter::Take(const std::string& who, int n) {
  return TakeAt(who, std::chrono::steady_clock::now(), n);
}

int RateLimiter::TakeAt(const std::string& who, std::chrono::steady_clock::time_point now, int n) {
  if (!enabled()) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buckets_.find(who);
  if (it == buckets_.end()) {
    if (buckets_.size() >= kMaxBuckets) {  // drop buckets that would be full by now anyway
      for (auto b = buckets_.begin(); b != buckets_.end();) {
        double full_after = (burst_ - b->second.tokens) / rate_;
        if (std::chrono::duration<double>(now - b->second.at).count() >= full_after)
          b = buckets_.erase(b);
        else
          ++b;
      }
    }
    it = buckets_.emplace(who, Bucket{burst_, now}).first;
  }
  Bucket& b = it->second;
  double elapsed = std::chrono::duration<double>(now - b.at).count();
  b.tokens = std::min(burst_, b.tokens + std::max(0.0, elapsed) * rate_);
  b.at = now;
  const double want = std::max(1, n);
  if (b.tokens >= want) {
    b.tokens -= want;
    return 0;
  }
  if (want > burst_)
    return std::max(
        1, static_cast<int>(std::ceil(burst_ / rate_)));  // never fits: a full bucket's wait
  return std::max(1, static_cast<int>(std::ceil((want - b.tokens) / rate_)));
}

}  // namespace pc
