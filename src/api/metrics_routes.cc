// GET /metrics: the process's Prometheus metrics (ops/metrics.h), for an admin or a `metrics`
// token. Infrastructure, not part of the spec's API (RFC 0046): text, not JSON.
#include "api/router.h"
#include "ops/metrics.h"

namespace pc {

void AddMetricsRoutes(Router& router) {
  router.Add("GET", "/metrics", {"get_metrics", Permission::kMetrics, ScopeIn::kNone},
             [](const ApiRequest& req) -> Result<ApiResponse> {
               PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {}));
               ApiResponse out;
               out.text = ops::metrics().Render();
               out.content_type = "text/plain; version=0.0.4; charset=utf-8";
               out.headers.emplace_back("Cache-Control", "no-store");
               return out;
             });
}

}  // namespace pc
