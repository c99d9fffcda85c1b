// JSON texts of about a given size in the shapes that cost a parser most per byte: shared by the
// JSON cost test (tests/cost) and bench/json_bench.
#pragma once

#include <string>
#include <vector>

namespace pc::testing {

struct JsonShape {
  const char* name;
  std::string (*make)(size_t bytes);
};

inline std::string Repeat(const std::string& open, const std::string& item,
                          const std::string& close, size_t bytes) {
  std::string out = open;
  while (out.size() + item.size() + close.size() < bytes) out += item;
  if (!item.empty() && out.size() > open.size() && out.back() == ',') out.pop_back();
  if (out.size() == open.size()) out += item.substr(0, item.size() - (item.back() == ',' ? 1 : 0));
  return out + close;
}

inline std::vector<JsonShape> JsonShapes() {
  return {
      {"wide_numbers", [](size_t n) { return Repeat("[", "0,", "]", n); }},
      {"small_objects", [](size_t n) { return Repeat("[", "{},", "]", n); }},
      {"keyed_objects", [](size_t n) { return Repeat("[", "{\"a\":1},", "]", n); }},
      {"wide_object",
       [](size_t n) {
         std::string out = "{";
         for (size_t i = 0; out.size() + 16 < n; ++i) out += "\"" + std::to_string(i) + "\":0,";
         if (out.back() == ',') out.pop_back();
         return out + "}";
       }},
      {"long_string", [](size_t n) { return "\"" + std::string(n > 2 ? n - 2 : 0, 'a') + "\""; }},
      {"deep_nesting",  // blocks 60 levels deep, side by side (deeper is refused at 64)
       [](size_t n) {
         return Repeat("[", std::string(60, '[') + std::string(60, ']') + ",", "]", n);
       }},
  };
}

}  // namespace pc::testing
