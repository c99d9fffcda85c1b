#include "model/types.h"

#include <charconv>
#include <string>

namespace pc {

const char* ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kAdd:
      return "add";
    case ChangeOp::kRevise:
      return "revise";
    case ChangeOp::kRetire:
      return "retire";
  }
  return "add";
}

std::optional<ChangeOp> ParseChangeOp(std::string_view name) {
  if (name == "add") return ChangeOp::kAdd;
  if (name == "revise") return ChangeOp::kRevise;
  if (name == "retire") return ChangeOp::kRetire;
  return std::nullopt;
}

const char* HandoffCitationKindName(HandoffCitationKind k) {
  switch (k) {
    case HandoffCitationKind::kSource:
      return "source";
    case HandoffCitationKind::kArtifact:
      return "artifact";
    case HandoffCitationKind::kMemory:
      return "memory";
  }
  return "memory";
}

std::optional<HandoffCitationKind> ParseHandoffCitationKind(std::string_view name) {
  if (name == "source") return HandoffCitationKind::kSource;
  if (name == "artifact") return HandoffCitationKind::kArtifact;
  if (name == "memory") return HandoffCitationKind::kMemory;
  return std::nullopt;
}

const char* HandoffDispositionName(HandoffDisposition d) {
  switch (d) {
    case HandoffDisposition::kContinuable:
      return "continuable";
    case HandoffDisposition::kBlocked:
      return "blocked";
    case HandoffDisposition::kComplete:
      return "complete";
  }
  return "continuable";
}

std::optional<HandoffDisposition> ParseHandoffDisposition(std::string_view name) {
  if (name == "continuable") return HandoffDisposition::kContinuable;
  if (name == "blocked") return HandoffDisposition::kBlocked;
  if (name == "complete") return HandoffDisposition::kComplete;
  return std::nullopt;
}

std::string SourceRef(const Source& s) {
  return "source/" + s.idempotency_key.value_or(s.source_id) + "@" + std::to_string(s.position);
}

std::optional<SourceRefParts> ParseSourceRef(std::string_view ref) {
  constexpr std::string_view kPrefix = "source/";
  const size_t at = ref.rfind('@');  // an id may hold '@'; the position after the last is digits
  if (!ref.starts_with(kPrefix) || at == std::string_view::npos || at <= kPrefix.size())
    return std::nullopt;
  std::string_view digits = ref.substr(at + 1);
  int64_t position = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), position);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || position < 1)
    return std::nullopt;
  return SourceRefParts{std::string(ref.substr(kPrefix.size(), at - kPrefix.size())), position};
}

}  // namespace pc
