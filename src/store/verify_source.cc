#include "store/verify_source.h"

#include <cstdlib>

namespace pc {

int64_t VerifyRows::Int(size_t row, size_t col) const {
  const std::optional<std::string>& v = rows[row][col];
  return v ? std::strtoll(v->c_str(), nullptr, 10) : 0;
}

Status CheckVerifySchema(const std::string& what, int64_t found, int64_t latest,
                         const std::string& upgrade) {
  if (found == latest) return Status::Ok();
  return InvalidArgument(what + " has schema version " + std::to_string(found) +
                         ", this build verifies version " + std::to_string(latest) + ": " +
                         (found < latest ? upgrade : "use a newer powercontext"));
}

}  // namespace pc
