// The route table: method + path pattern → handler; 404 for an unknown path, 405 for a known path
// with another method.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/body_limits.h"
#include "api/json_codec.h"
#include "api/services.h"
#include "auth/principal.h"
#include "common/status.h"
#include "service/core/scope_ref.h"

namespace pc {

struct ApiRequest {
  std::string method;
  std::string path;
  std::vector<std::string> path_params;  // the pattern's ([^/]+) segments, in order
  std::multimap<std::string, std::string> query;
  std::string body;
  std::string base_url;  // how the client reached us, e.g. https://memory.example:8787
  // How much the body's JSON may build (api/body_limits.h; the route's, over HTTP).
  JsonLimits json_limits = JsonLimitsForBody(BodyLimits{}.batch);

  // The body, parsed once: authorization (a scope-limited token's scope_id) and the handler both
  // read this parse. TakeJsonBody hands the value over (the handler is its last reader).
  const Result<Json>& JsonBody() const;
  Result<Json> TakeJsonBody() const;
  // JsonBody's cache (public only so that ApiRequest stays an aggregate; use the two above).
  mutable std::optional<Result<Json>> parsed_body_ = std::nullopt;

  // The scope the route names (RouteAccess::scope), parsed once by the router when it is a well-
  // formed scope id; authorizing a token limited to some scopes may have found it too. Handlers
  // hand it to the service with the request (null: not named, or malformed: the service says why).
  std::optional<ScopeRef> scope = std::nullopt;
  const ScopeRef* ParsedScope() const { return scope ? &*scope : nullptr; }
};

struct ApiResponse {
  ApiResponse() = default;
  ApiResponse(int s, Json b) : status(s), body(std::move(b)) {}
  int status = 200;
  Json body;
  const char* operation = "unmatched";  // the matched route's operation id (logs, metrics)
  // A body that is not JSON (GET /metrics): sent as it is with this content type.
  std::optional<std::string> text;
  std::string content_type;
  // Extra response headers (name, value), e.g. Cache-Control; JSON content type is always set.
  std::vector<std::pair<std::string, std::string>> headers;
};

using ApiHandler = std::function<Result<ApiResponse>(const ApiRequest&)>;

// Where a route finds the scope it acts on, for a token limited by scope patterns.
enum class ScopeIn {
  kNone,           // no scope's data (health, capabilities, metrics)
  kBody,           // the JSON body's scope_id
  kQuery,          // the query's scope_id
  kQueryOptional,  // the query's scope_id if given (without: a server-wide answer)
  kPath,           // the first path parameter
  kBodyKey,        // the JSON body's key (POST /v1/scopes)
  kFiltered,       // every scope, and the handler shows only what the caller may see
  kAll,            // every scope at once (tokens, audit): a limited token may not
};

// What a route is and needs, declared once in the route table: its operation id (the spec's
// operationId where the spec has the route), its permission and where its scope is.
struct RouteAccess {
  const char* operation;
  Permission permission;
  ScopeIn scope = ScopeIn::kNone;
  BodySize body = BodySize::kSmall;  // how large its body may be (api/body_limits.h)
};

struct RouteInfo {
  std::string method;
  std::string pattern;
  RouteAccess access;
};

// A server id's (scp_…) scope, looked up and kept in the ScopeRef (nullopt: no such scope).
using FindScope = std::function<Result<std::optional<ScopeIds>>(const ScopeRef& scope)>;

class Router {
  struct Route;

 public:
  // What a method and path name in the table: the route (null: none) with its path captures,
  // or the methods the path takes (for 405).
  struct Match {
    const Route* route = nullptr;
    std::vector<std::string> params;
    std::string allowed;
    const RouteInfo* info() const;
  };
  void Add(std::string method, const std::string& pattern, RouteAccess access, ApiHandler handler);
  void SetFindScope(FindScope fn) { find_scope_ = std::move(fn); }
  // Called (under the request's context) for every request an authenticated token was refused:
  // the audit log's record of refusals, including MCP tool calls that answer HTTP 200.
  void SetOnDenied(std::function<void(const Status& refusal, const char* operation)> fn) {
    on_denied_ = std::move(fn);
  }
  // Routes `req` (path_params are filled in), checks the current principal
  // (auth/request_context.h) against the route's permission and scope, and runs the handler
  // under the route's operation; errors become JSON errors.
  ApiResponse Dispatch(ApiRequest& req) const;
  // The same, for a request already resolved (the HTTP layer resolves once, before the body).
  ApiResponse Dispatch(ApiRequest& req, const Match& match) const;
  // One pass over the table for `method path`.
  Match Resolve(const std::string& method, const std::string& path) const;
  std::vector<RouteInfo> Routes() const;

 private:
  struct Route {
    RouteInfo info;
    std::vector<std::string> segments;  // the pattern split at '/'; kParam where it takes any
    ApiHandler handler;
    size_t order = 0;  // its place in the table
    bool parameterized = false;
  };
  static bool Matches(const Route& r, const std::vector<std::string_view>& parts,
                      std::vector<std::string>* params);
  Status Authorize(const Route& route, const ApiRequest& req) const;
  // Table order is kept (it decides which of two routes of one path and method answers). A path
  // without parameters is one hash lookup; the few patterns with one are compared segment by
  // segment. No regular expression on any request.
  std::vector<std::unique_ptr<Route>> routes_;
  std::unordered_map<std::string, std::vector<const Route*>> literal_;
  std::vector<const Route*> parameterized_;
  FindScope find_scope_;
  std::function<void(const Status&, const char*)> on_denied_;
};

// The request's body as a JSON object with only `allowed` fields (api/json_codec.h), from its one
// parse.
Result<Body> ParseBody(const ApiRequest& req, std::initializer_list<const char*> allowed);

// A route handler of a service: `fn(service, request)` as an ApiHandler. The service must outlive
// the router.
template <class Service>
ApiHandler Bind(Service& service, Result<ApiResponse> (*fn)(Service&, const ApiRequest&)) {
  return [&service, fn](const ApiRequest& req) { return fn(service, req); };
}

// What the routes say about how the server runs.
struct RouteOptions {
  // Non-empty: /health/ready reports it under checks.authentication and says "degraded"
  // (serving a network address with auth off).
  std::string security_warning;
};

// Registers every /v1 route.
void AddRoutes(Router& router, Services services, const RouteOptions& options = {});
// The source log and flush routes (api/source_routes.cc).
void AddSourceRoutes(Router& router, Services services);
// The prepared-context route (api/context_routes.cc).
void AddContextRoutes(Router& router, Services services);
// The handoff routes (api/handoff_routes.cc).
void AddHandoffRoutes(Router& router, Services services);
void AddReviewRoutes(Router& router, Services services);
// The external Skill registry's routes (api/skill_routes.cc).
void AddSkillRoutes(Router& router, Services services);
// The Handoff Report catalog (report_routes.cc).
void AddReportRoutes(Router& router, Services services);
// The spec's memory routes (api/memory_routes.cc).
void AddMemoryRoutes(Router& router, Services services);
// Health and capabilities (api/health_routes.cc).
void AddHealthRoutes(Router& router, Services services, const RouteOptions& options);
// GET /ui and its files: the web console (api/console_routes.cc).
void AddConsoleRoutes(Router& router);
// GET /openapi.json (api/openapi_routes.cc), and the document it serves.
void AddOpenApiRoutes(Router& router);
const std::string& OpenApiDocument();
// Tokens, the audit log and the protected-resource metadata (api/security_routes.cc).
void AddSecurityRoutes(Router& router, Services services);
// GET /metrics (api/metrics_routes.cc).
void AddMetricsRoutes(Router& router);
// GET /v1/stats (api/stats_routes.cc), and its answer's JSON (the spec's ScopedStats).
void AddStatsRoutes(Router& router, Services services);
Json StatsJson(const ScopedStats& stats);

}  // namespace pc
