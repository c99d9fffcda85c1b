#include "portable/format.h"

#include "store/table_catalog.h"

namespace pc::portable {

nlohmann::ordered_json TablesJson(int format_version) {
  nlohmann::ordered_json tables = nlohmann::ordered_json::array();
  for (const StoreTable& t : StoreTables()) {
    if (t.since_format > format_version) continue;
    nlohmann::ordered_json columns = nlohmann::ordered_json::array();
    const std::vector<std::string> names = SplitColumns(t.columns);
    for (size_t i = 0; i < names.size(); ++i)
      columns.push_back({{"name", names[i]}, {"type", ColumnTypeName(t.types[i])}});
    tables.push_back({{"name", t.name}, {"columns", std::move(columns)}});
  }
  return tables;
}

std::string Line(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict) + "\n";
}

std::string ToHex(const void* data, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHex[p[i] >> 4]);
    out.push_back(kHex[p[i] & 15]);
  }
  return out;
}

std::optional<std::string> FromHex(const std::string& hex) {
  if (hex.size() % 2) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace pc::portable
