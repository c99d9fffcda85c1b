#include "store/verify_source.h"

#include <cstdlib>

namespace pc {

int64_t VerifyRows::Int(size_t row, size_t col) const {
  const std::optional<std::string>& v = rows[row][col];
  return v ? std::strtoll(v->c_str(), nullptr, 10) : 0;
}

}  // namespace pc
