#include "common/ids.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <random>

namespace pc {
namespace {

constexpr char kCrockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
constexpr size_t kUlidChars = 26;

uint64_t RandomWord() {
  thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd()};
    return std::mt19937_64(seq);
  }());
  return rng();
}

}  // namespace

// Monotonic ULIDs (as the ULID spec describes): within one millisecond the 80-bit random part is
// incremented, so ids made by this process sort in the order they were made.
std::string NewId(std::string_view prefix) {
  static std::mutex mu;
  static uint64_t last_ms = 0, hi = 0, lo = 0;  // hi holds the top 16 of the 80 random bits
  uint64_t ms, r_hi, r_lo;
  {
    std::lock_guard<std::mutex> lock(mu);
    ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
    if (ms <= last_ms) {
      ms = last_ms;
      if (++lo == 0) hi = (hi + 1) & 0xFFFF;
    } else {
      last_ms = ms;
      hi = RandomWord() & 0x7FFF;  // top bit clear leaves room to increment
      lo = RandomWord();
    }
    r_hi = hi;
    r_lo = lo;
  }
  char body[kUlidChars];
  for (int i = 9; i >= 0; --i) {  // 10 characters of time (50 bits)
    body[i] = kCrockford[ms & 31];
    ms >>= 5;
  }
  for (int i = 25; i >= 10; --i) {  // 16 characters of the 80-bit counter, most significant first
    body[i] = kCrockford[r_lo & 31];
    r_lo = (r_lo >> 5) | ((r_hi & 31) << 59);
    r_hi >>= 5;
  }
  std::string id(prefix);
  id.append(body, kUlidChars);
  return id;
}

bool IsWellFormedId(std::string_view id, std::string_view prefix) {
  if (id.size() != prefix.size() + kUlidChars || id.substr(0, prefix.size()) != prefix)
    return false;
  for (char c : id.substr(prefix.size())) {
    bool digit = c >= '0' && c <= '9';
    bool upper = c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U';
    if (!digit && !upper) return false;
  }
  return true;
}

}  // namespace pc
