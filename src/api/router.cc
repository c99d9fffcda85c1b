#include "api/router.h"

#include <exception>

#include <nlohmann/json.hpp>

#include "wire/error_map.h"

namespace pc {

void Router::Add(std::string method, const std::string& pattern, ApiHandler handler) {
  routes_.push_back(Route{std::move(method), pattern, std::regex(pattern), std::move(handler)});
}

ApiResponse Router::Dispatch(ApiRequest& req) const {
  auto fail = [](const Status& s) { return ApiResponse{HttpStatusFor(s.code()), ErrorJson(s)}; };
  std::string allowed;
  for (const Route& r : routes_) {
    std::smatch m;
    if (!std::regex_match(req.path, m, r.regex)) continue;
    if (r.method != req.method) {
      allowed += (allowed.empty() ? "" : ", ") + r.method;
      continue;
    }
    if (r.method != "GET" && !req.query.empty())  // POST routes take everything in the body
      return fail(InvalidArgument("query parameters are not accepted here; send them in the JSON body")
                      .WithDetail("field", req.query.begin()->first));
    req.path_params.clear();
    for (size_t i = 1; i < m.size(); ++i) req.path_params.push_back(m[i].str());
    try {
      Result<ApiResponse> res = r.handler(req);
      if (!res.ok()) return fail(res.status());
      return std::move(res).value();
    } catch (const std::exception& e) {
      return fail(Internal(std::string("unexpected error: ") + e.what()));
    }
  }
  if (!allowed.empty())
    return fail(Status(Code::kMethodNotAllowed, req.method + " is not allowed on " + req.path)
                    .WithDetail("allow", allowed));
  return fail(NotFound("no route " + req.method + " " + req.path));
}

}  // namespace pc
