#include "wire/error_json.h"

#include <nlohmann/json.hpp>
#include <variant>

#include "wire/error_map.h"

namespace pc {

Json ErrorJson(const Status& s) {
  Json details = Json::object();
  for (const Detail& d : s.details())
    std::visit([&](const auto& v) { details[d.key] = v; }, d.value);
  return Json{
      {"error", {{"code", CodeName(s.code())}, {"message", s.message()}, {"details", details}}}};
}

Status ErrorFromJson(int http_status, const Json& body) {
  Code code = CodeForHttpStatus(http_status);
  std::string message = "HTTP " + std::to_string(http_status);
  Status s(code, message);
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    const Json& e = body["error"];
    auto c = e.find("code");
    if (c != e.end() && c->is_string())
      if (auto named = CodeFromName(c->get<std::string>())) code = *named;
    auto m = e.find("message");
    s = Status(code, m != e.end() && m->is_string() ? m->get<std::string>() : message);
    if (e.contains("details") && e["details"].is_object())
      for (const auto& [k, v] : e["details"].items()) {
        if (v.is_number_integer())
          s.With(k, v.get<int64_t>());
        else
          s.With(k, v.is_string() ? v.get<std::string>() : v.dump());
      }
  }
  return s;
}

}  // namespace pc
