#include "providers/openai_usage.h"

namespace pc {

std::optional<int64_t> UsageField(const nlohmann::json& answer, const char* field) {
  if (!answer.contains("usage") || !answer["usage"].is_object()) return std::nullopt;
  const auto& u = answer["usage"];
  if (!u.contains(field) || !u[field].is_number_integer() || u[field].get<int64_t>() < 0)
    return std::nullopt;
  return u[field].get<int64_t>();
}

}  // namespace pc
