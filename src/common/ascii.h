// ASCII tests of a string, independent of the locale (std::isdigit is not).
#pragma once

#include <string_view>

namespace pc {

// True when `s` is non-empty and every byte of it is '0'..'9'.
inline bool AllAsciiDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace pc
