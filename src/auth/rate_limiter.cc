#include "auth/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace pc {

int RateLimiter::Take(const std::string& who) { return TakeAt(who, std::chrono::steady_clock::now()); }

int RateLimiter::TakeAt(const std::string& who, std::chrono::steady_clock::time_point now) {
  if (!enabled()) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buckets_.find(who);
  if (it == buckets_.end()) {
    if (buckets_.size() >= kMaxBuckets) {  // drop buckets that would be full by now anyway
      for (auto b = buckets_.begin(); b != buckets_.end();) {
        double full_after = (burst_ - b->second.tokens) / rate_;
        if (std::chrono::duration<double>(now - b->second.at).count() >= full_after) b = buckets_.erase(b);
        else ++b;
      }
    }
    it = buckets_.emplace(who, Bucket{burst_, now}).first;
  }
  Bucket& b = it->second;
  double elapsed = std::chrono::duration<double>(now - b.at).count();
  b.tokens = std::min(burst_, b.tokens + std::max(0.0, elapsed) * rate_);
  b.at = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return 0;
  }
  return std::max(1, static_cast<int>(std::ceil((1 - b.tokens) / rate_)));
}

}  // namespace pc
