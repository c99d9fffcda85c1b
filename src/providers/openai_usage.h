// What an OpenAI-compatible answer says it cost, as the chat and embedding clients read it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

namespace pc {

// An OpenAI-compatible `usage.<field>`, if the answer reports it as a non-negative integer.
std::optional<int64_t> UsageField(const nlohmann::json& answer, const char* field);

}  // namespace pc
