// Small readers shared by the session code and the host hooks: a string field of JSON a host or a
// client wrote (json::value() throws on a field of the wrong type; this answers ""), and a count
// with thousands separators as the tables and placeholders print it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace pc {

inline std::string StringField(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

inline std::string WithThousands(int64_t n) {
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return (n < 0 ? "-" : "") + out;
}

}  // namespace pc
