// The route table: method + path pattern → handler; 404 for an unknown path, 405 for a known path
// with another method.
#pragma once

#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/json_codec.h"
#include "api/services.h"
#include "common/status.h"

namespace pc {

struct ApiRequest {
  std::string method;
  std::string path;
  std::vector<std::string> path_params;  // regex captures, in order
  std::multimap<std::string, std::string> query;
  std::string body;
};

struct ApiResponse {
  ApiResponse() = default;
  ApiResponse(int s, Json b) : status(s), body(std::move(b)) {}
  int status = 200;
  Json body;
  // Extra response headers (name, value), e.g. Cache-Control; JSON content type is always set.
  std::vector<std::pair<std::string, std::string>> headers;
};

using ApiHandler = std::function<Result<ApiResponse>(const ApiRequest&)>;

class Router {
 public:
  void Add(std::string method, const std::string& pattern, ApiHandler handler);
  // Routes `req` (path_params are filled in) and runs the handler; errors become JSON errors.
  ApiResponse Dispatch(ApiRequest& req) const;

 private:
  struct Route {
    std::string method;
    std::string pattern;
    std::regex regex;
    ApiHandler handler;
  };
  std::vector<Route> routes_;
};

// A route handler of a service: `fn(service, request)` as an ApiHandler. The service must outlive
// the router.
template <class Service>
ApiHandler Bind(Service& service, Result<ApiResponse> (*fn)(Service&, const ApiRequest&)) {
  return [&service, fn](const ApiRequest& req) { return fn(service, req); };
}

// Registers every /v1 route.
void AddRoutes(Router& router, Services services);
// The source log and flush routes (api/source_routes.cc).
void AddSourceRoutes(Router& router, Services services);
// The prepared-context route (api/context_routes.cc).
void AddContextRoutes(Router& router, Services services);
// The handoff routes (api/handoff_routes.cc).
void AddHandoffRoutes(Router& router, Services services);
// The spec's memory routes (api/memory_routes.cc).
void AddMemoryRoutes(Router& router, Services services);
// Health and capabilities (api/health_routes.cc).
void AddHealthRoutes(Router& router, Services services);
// GET /v1/stats (api/stats_routes.cc), and its answer's JSON (the spec's ScopedStats).
void AddStatsRoutes(Router& router, Services services);
Json StatsJson(const ScopedStats& stats);

}  // namespace pc
