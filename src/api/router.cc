#include "api/router.h"

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "auth/request_context.h"
#include "common/json_parse.h"
#include "service/core/validation.h"
#include "wire/error_map.h"

namespace pc {
namespace {

// The error's JSON at its status; an error that says when to retry (a busy store) also says so in
// Retry-After, as the HTTP layer's own rate limit does.
ApiResponse Fail(const Status& s) {
  ApiResponse out{HttpStatusFor(s.code()), ErrorJson(s)};
  if (std::optional<int64_t> wait = RetryAfterSeconds(s))
    out.headers.emplace_back("Retry-After", std::to_string(*wait));
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
    const Result<Json>& parsed = req.JsonBody();
    if (!parsed.ok() || !parsed->is_object()) return std::nullopt;
    auto it = parsed->find(field);
    if (it == parsed->end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  switch (where) {
    case ScopeIn::kBody:
      return from_body("scope_id");
    case ScopeIn::kBodyKey:
      return from_body("key");
    case ScopeIn::kQuery:
    case ScopeIn::kQueryOptional:
      return from_query();
    case ScopeIn::kPath:
      return req.path_params.empty() ? std::nullopt : std::optional(req.path_params[0]);
    default:
      return std::nullopt;
  }
}

}  // namespace

const Result<Json>& ApiRequest::JsonBody() const {
  if (!parsed_body_) parsed_body_.emplace(ParseJson(body, json_limits));
  return *parsed_body_;
}

Result<Json> ApiRequest::TakeJsonBody() const {
  if (!parsed_body_) return ParseJson(body, json_limits);
  Result<Json> out = std::move(*parsed_body_);
  parsed_body_.reset();
  return out;
}

Result<Body> ParseBody(const ApiRequest& req, std::initializer_list<const char*> allowed) {
  return Body::Parse(req.TakeJsonBody(), allowed);
}

namespace {

// The one pattern of a path parameter: a segment of one or more characters but '/'.
constexpr std::string_view kParam = "([^/]+)";

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    parts.push_back(path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

}  // namespace

void Router::Add(std::string method, const std::string& pattern, RouteAccess access,
                 ApiHandler handler) {
  auto route = std::make_unique<Route>(
      Route{RouteInfo{std::move(method), pattern, access}, {}, std::move(handler)});
  route->order = routes_.size();
  // The parameter's pattern has a '/' of its own: mark it before splitting.
  std::string marked = pattern;
  for (size_t at = marked.find(kParam); at != std::string::npos; at = marked.find(kParam, at + 1))
    marked.replace(at, kParam.size(), "\x01");
  for (std::string_view part : SplitPath(marked)) {
    if (part == "\x01") {
      part = kParam;
      route->parameterized = true;
    } else if (part.find_first_of("()[]{}*+?|^$\\") != std::string_view::npos) {
      throw std::logic_error("route pattern " + pattern + ": a segment is a literal or " +
                             std::string(kParam));
    }
    route->segments.emplace_back(part);
  }
  if (route->parameterized)
    parameterized_.push_back(route.get());
  else
    literal_[pattern].push_back(route.get());
  routes_.push_back(std::move(route));
}

bool Router::Matches(const Route& r, const std::vector<std::string_view>& parts,
                     std::vector<std::string>* params) {
  if (r.segments.size() != parts.size()) return false;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (r.segments[i] == kParam) {
      if (parts[i].empty()) return false;
    } else if (r.segments[i] != parts[i]) {
      return false;
    }
  }
  for (size_t i = 0; i < parts.size(); ++i)
    if (r.segments[i] == kParam) params->emplace_back(parts[i]);
  return true;
}

const RouteInfo* Router::Match::info() const { return route ? &route->info : nullptr; }

Router::Match Router::Resolve(const std::string& method, const std::string& path) const {
  Match out;
  // The routes of this path, in table order, each with its path parameters (split once).
  std::vector<std::pair<const Route*, std::vector<std::string>>> found;
  if (auto it = literal_.find(path); it != literal_.end())
    for (const Route* r : it->second) found.emplace_back(r, std::vector<std::string>());
  if (!parameterized_.empty()) {
    const std::vector<std::string_view> parts = SplitPath(path);
    for (const Route* r : parameterized_) {
      std::vector<std::string> params;
      if (Matches(*r, parts, &params)) found.emplace_back(r, std::move(params));
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.first->order < b.first->order; });
  }
  for (auto& [r, params] : found) {
    if (r->info.method != method) {
      out.allowed += (out.allowed.empty() ? "" : ", ") + r->info.method;
      continue;
    }
    out.route = r;
    out.params = std::move(params);
    return out;
  }
  return out;
}

std::vector<RouteInfo> Router::Routes() const {
  std::vector<RouteInfo> out;
  for (const auto& r : routes_) out.push_back(r->info);
  return out;
}

// The route's permission, then its scope: a token limited by scope patterns may act only on
// scopes whose names match, whatever the route (DESIGN §11).
Status Router::Authorize(const Route& route, const ApiRequest& req) const {
  const Principal& who = CurrentPrincipal();
  const RouteAccess& access = route.info.access;
  if (!who.Allows(access.permission)) {
    if (who.role == Role::kNone)
      return Status(Code::kUnauthenticated, "A valid bearer token is required.")
          .WithDetail("reason", "missing");
    return Status(Code::kPermissionDenied,
                  std::string("a ") + RoleName(who.role) + " token may not " + access.operation +
                      " (it needs " + PermissionName(access.permission) + ")")
        .WithDetail("role", std::string(RoleName(who.role)))
        .WithDetail("required", std::string(PermissionName(access.permission)));
  }
  if (!who.Restricted()) return Status::Ok();
  auto limited = [&](const std::string& what) {
    return Status(Code::kPermissionDenied,
                  "token " + who.name + " is limited to some scopes; " + what)
        .WithDetail("token", who.name);
  };
  switch (access.scope) {
    case ScopeIn::kNone:
    case ScopeIn::kFiltered:
      return Status::Ok();
    case ScopeIn::kAll:
      return limited(std::string(access.operation) + " covers every scope");
    default:
      break;
  }
  std::optional<std::string> name = NamedScope(access.scope, req);
  if (!name) {
    if (access.scope == ScopeIn::kQueryOptional && !req.query.count("scope_id"))
      return Status::Ok();
    return limited("name one of them in scope_id");
  }
  // Scope patterns match keys: a server id (scp_…) is matched by its scope's key, found once
  // for the handler too (a malformed or unknown one matches nothing).
  std::optional<std::string> key = *name;
  if (IsServerScopeId(*name)) {
    key.reset();
    if (req.scope && find_scope_) {
      PC_ASSIGN_OR_RETURN(std::optional<ScopeIds> found, find_scope_(*req.scope));
      if (found) key = found->key;
    }
  }
  if (!key || !who.MaySee(*key))
    return limited("it may not use " + *name).WithDetail("scope_id", *name);
  return Status::Ok();
}

ApiResponse Router::Dispatch(ApiRequest& req) const {
  return Dispatch(req, Resolve(req.method, req.path));
}

ApiResponse Router::Dispatch(ApiRequest& req, const Match& match) const {
  if (!match.route) {
    if (!match.allowed.empty())
      return Fail(Status(Code::kMethodNotAllowed, req.method + " is not allowed on " + req.path)
                      .WithDetail("allow", match.allowed));
    return Fail(NotFound("no route " + req.method + " " + req.path));
  }
  const Route& r = *match.route;
  req.path_params = match.params;
  if (r.info.access.scope != ScopeIn::kBodyKey) {
    if (std::optional<std::string> name = NamedScope(r.info.access.scope, req)) {
      if (Result<ScopeRef> parsed = ScopeRef::Parse(std::move(*name)); parsed.ok())
        req.scope = std::move(parsed).value();
    }
  }
  OperationScope op(r.info.access.operation);
  auto answer = [&]() -> ApiResponse {
    // A body with more JSON values than its route allows is refused as a body over its size is.
    if (r.info.method != "GET" && !req.body.empty()) {
      const Result<Json>& parsed = req.JsonBody();
      if (!parsed.ok() && parsed.status().code() == Code::kTooLarge)
        return ApiResponse{
            413, ErrorJson(Status(parsed.status())
                               .WithDetail("limit_values",
                                           static_cast<int64_t>(req.json_limits.max_values)))};
    }
    if (Status s = Authorize(r, req); !s.ok()) {
      if (on_denied_ && CurrentPrincipal().authenticated) on_denied_(s, r.info.access.operation);
      return Fail(s);
    }
    if (r.info.method != "GET" && !req.query.empty())  // POST routes take everything in the body
      return Fail(FieldError(req.query.begin()->first,
                             "query parameters are not accepted here; send them in the JSON body"));
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
