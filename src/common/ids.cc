#include "common/ids.h"

#include <chrono>
#include <cstdint>
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

std::string NewId(std::string_view prefix) {
  uint64_t ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
  uint64_t r1 = RandomWord();
  uint64_t r2 = RandomWord();
  char body[kUlidChars];
  // 10 characters of time (50 bits, top 2 zero), 16 characters of randomness (80 bits).
  for (int i = 9; i >= 0; --i) {
    body[i] = kCrockford[ms & 31];
    ms >>= 5;
  }
  for (int i = 0; i < 16; ++i) {
    uint64_t& src = i < 12 ? r1 : r2;
    body[10 + i] = kCrockford[src & 31];
    src >>= 5;
  }
  std::string id(prefix);
  id.append(body, kUlidChars);
  return id;
}

bool IsWellFormedId(std::string_view id, std::string_view prefix) {
  if (id.size() != prefix.size() + kUlidChars || id.substr(0, prefix.size()) != prefix) return false;
  for (char c : id.substr(prefix.size())) {
    bool digit = c >= '0' && c <= '9';
    bool upper = c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U';
    if (!digit && !upper) return false;
  }
  return true;
}

}  // namespace pc
