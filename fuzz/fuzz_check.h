// Shared by the fuzz targets (fuzz/*_fuzzer.cc): a check that aborts with a message, so a broken
// invariant is a crash libFuzzer saves, and a reader that turns fuzz bytes into small values.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

// Aborts (a crash for libFuzzer, a failure for the corpus replay) when `cond` is false.
#define FUZZ_CHECK(cond, what)                                                                    \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      std::fprintf(stderr, "\nFUZZ_CHECK failed at %s:%d: %s\n  %s\n", __FILE__, __LINE__, #cond, \
                   std::string(what).c_str());                                                    \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)

namespace pc::fuzz {

// Reads the fuzz input front to back; past the end every read is 0 or empty. (libFuzzer's
// FuzzedDataProvider is clang-only; the corpus replay is also built with g++.)
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(U8() | (U8() << 8)); }
  std::string Str(size_t n) {
    n = std::min(n, size_ - std::min(pos_, size_));
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  std::string Rest() { return Str(size_); }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

inline std::string Printable(std::string_view s, size_t max = 300) {
  std::string out;
  for (char c : s.substr(0, max)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
      out.push_back(c);
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  if (s.size() > max) out += "…";
  return out;
}

}  // namespace pc::fuzz
