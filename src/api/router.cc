#include "api/router.h"

#include <exception>

#include <nlohmann/json.hpp>

#include "auth/request_context.h"
#include "common/json_parse.h"
#include "wire/error_map.h"

namespace pc {
namespace {

// The error's JSON at its status; an error that says when to retry (a busy store) also says so in
// Retry-After, as the HTTP layer's own rate limit does.
ApiResponse Fail(const Status& s) {
  ApiResponse out{HttpStatusFor(s.code()), ErrorJson(s)};
  if (std::optional<int64_t> wait = RetryAfterSeconds(s)) out.headers.emplace_back("Retry-After", std::to_string(*wait));
  return out;
}

// The scope a request names, where the route says it is (nullopt: not given, or not a string).
std::optional<std::string> NamedScope(ScopeIn where, const ApiRequest& req) {
  auto from_query = [&]() -> std::optional<std::string> {
    auto it = req.query.find("scope_id");
    if (it == req.query.end()) return std::nullopt;
    return it->second;
  };
  auto from_body = [&](const char* field) -> std::optional<std::string> {
    auto parsed = ParseJson(req.body);
    if (!parsed.ok() || !parsed->is_object()) return std::nullopt;
    auto it = parsed->find(field);
    if (it == parsed->end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  switch (where) {
    case ScopeIn::kBody: return from_body("scope_id");
    case ScopeIn::kBodyKey: return from_body("key");
    case ScopeIn::kQuery:
    case ScopeIn::kQueryOptional: return from_query();
    case ScopeIn::kPath: return req.path_params.empty() ? std::nullopt : std::optional(req.path_params[0]);
    default: return std::nullopt;
  }
}

}  // namespace

void Router::Add(std::string method, const std::string& pattern, RouteAccess access, ApiHandler handler) {
  routes_.push_back(Route{RouteInfo{std::move(method), pattern, access}, std::regex(pattern), std::move(handler)});
}

const RouteInfo* Router::Match::info() const { return route ? &route->info : nullptr; }

Router::Match Router::Resolve(const std::string& method, const std::string& path) const {
  Match out;
  for (const Route& r : routes_) {
    std::smatch m;
    if (!std::regex_match(path, m, r.regex)) continue;
    if (r.info.method != method) {
      out.allowed += (out.allowed.empty() ? "" : ", ") + r.info.method;
      continue;
    }
    out.route = &r;
    for (size_t i = 1; i < m.size(); ++i) out.params.push_back(m[i].str());
    return out;
  }
  return out;
}

std::vector<RouteInfo> Router::Routes() const {
  std::vector<RouteInfo> out;
  for (const Route& r : routes_) out.push_back(r.info);
  return out;
}

// The route's permission, then its scope: a token limited by scope patterns may act only on
// scopes whose names match, whatever the route (DESIGN §11).
Status Router::Authorize(const Route& route, const ApiRequest& req) const {
  const Principal& who = CurrentPrincipal();
  const RouteAccess& access = route.info.access;
  if (!who.Allows(access.permission)) {
    if (who.role == Role::kNone)
      return Status(Code::kUnauthenticated, "A valid bearer token is required.").WithDetail("reason", "missing");
    return Status(Code::kPermissionDenied, std::string("a ") + RoleName(who.role) + " token may not " +
                                               access.operation + " (it needs " +
                                               PermissionName(access.permission) + ")")
        .WithDetail("role", std::string(RoleName(who.role)))
        .WithDetail("required", std::string(PermissionName(access.permission)));
  }
  if (!who.Restricted()) return Status::Ok();
  auto limited = [&](const std::string& what) {
    return Status(Code::kPermissionDenied, "token " + who.name + " is limited to some scopes; " + what)
        .WithDetail("token", who.name);
  };
  switch (access.scope) {
    case ScopeIn::kNone:
    case ScopeIn::kFiltered: return Status::Ok();
    case ScopeIn::kAll: return limited(std::string(access.operation) + " covers every scope");
    default: break;
  }
  std::optional<std::string> name = NamedScope(access.scope, req);
  if (!name) {
    if (access.scope == ScopeIn::kQueryOptional && !req.query.count("scope_id")) return Status::Ok();
    return limited("name one of them in scope_id");
  }
  std::optional<std::string> key = *name;
  if (scope_key_of_) {
    PC_ASSIGN_OR_RETURN(key, scope_key_of_(*name));
  }
  if (!key || !who.MaySee(*key))
    return limited("it may not use " + *name).WithDetail("scope_id", *name);
  return Status::Ok();
}

ApiResponse Router::Dispatch(ApiRequest& req) const { return Dispatch(req, Resolve(req.method, req.path)); }

ApiResponse Router::Dispatch(ApiRequest& req, const Match& match) const {
  if (!match.route) {
    if (!match.allowed.empty())
      return Fail(Status(Code::kMethodNotAllowed, req.method + " is not allowed on " + req.path)
                      .WithDetail("allow", match.allowed));
    return Fail(NotFound("no route " + req.method + " " + req.path));
  }
  const Route& r = *match.route;
  req.path_params = match.params;
  OperationScope op(r.info.access.operation);
  auto answer = [&]() -> ApiResponse {
    if (Status s = Authorize(r, req); !s.ok()) {
      if (on_denied_ && CurrentPrincipal().authenticated) on_denied_(s, r.info.access.operation);
      return Fail(s);
    }
    if (r.info.method != "GET" && !req.query.empty())  // POST routes take everything in the body
      return Fail(InvalidArgument("query parameters are not accepted here; send them in the JSON body")
                      .WithDetail("field", req.query.begin()->first));
    try {
      Result<ApiResponse> res = r.handler(req);
      if (!res.ok()) return Fail(res.status());
      return std::move(res).value();
    } catch (const std::exception& e) {
      return Fail(Internal(std::string("unexpected error: ") + e.what()));
    }
  };
  ApiResponse out = answer();
  out.operation = r.info.access.operation;
  return out;
}

}  // namespace pc
