// A page of a listing, as every paged use case takes it: a limit and the opaque cursor of the page
// before (validation.h CheckPage checks both; ParseIntCursor reads a numeric cursor).
#pragma once

#include <string>

namespace pc {

inline constexpr int kDefaultPageLimit = 100;
inline constexpr int kMaxPageLimit = 1000;

struct PageRequest {
  int limit = kDefaultPageLimit;
  std::string cursor;  // opaque; empty = first page
};

}  // namespace pc
