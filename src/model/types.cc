#include "model/types.h"

#include <charconv>

#include <string>

namespace pc {

const char* ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kAdd: return "add";
    case ChangeOp::kRevise: return "revise";
    case ChangeOp::kRetire: return "retire";
  }
  return "add";
}

std::string SourceRef(const Source& s) {
  return "source/" + s.idempotency_key.value_or(s.source_id) + "@" + std::to_string(s.position);
}

std::optional<SourceRefParts> ParseSourceRef(std::string_view ref) {
  constexpr std::string_view kPrefix = "source/";
  const size_t at = ref.rfind('@');  // an id may hold '@'; the position after the last is digits
  if (!ref.starts_with(kPrefix) || at == std::string_view::npos || at <= kPrefix.size()) return std::nullopt;
  std::string_view digits = ref.substr(at + 1);
  int64_t position = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), position);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || position < 1) return std::nullopt;
  return SourceRefParts{std::string(ref.substr(kPrefix.size(), at - kPrefix.size())), position};
}

}  // namespace pc
