// The spec's health and capability routes: GET /health/live, GET /health/ready (ready, degraded
// or not_ready, with a check per binding), GET /v1/capabilities. Our per-mode account with
// reasons is GET /v1/capabilities/search (api/routes.cc).
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "api/router.h"

namespace pc {
namespace {

// The database answers a read. Anything else is not_ready: nothing works without it.
bool DatabaseReady(MemoryService& memory) {
  PageRequest one;
  one.limit = 1;
  return memory.ListScopes(one).ok();
}

// The model providers' probes, asked at most every kProbeEvery: a readiness poll every second must
// not become a request to the provider every second.
constexpr std::chrono::seconds kProbeEvery{10};

struct ProviderProbes {
  std::mutex mu;
  std::optional<std::chrono::steady_clock::time_point> at;  // unset: never probed
  std::string embedding, extraction;                        // empty: not configured (no check)
};

// Readiness (interfaces.md "HTTP and MCP"): 200 ready when every check passes, 200 degraded when
// only a configured model provider fails its probe (unavailable, timeout, misconfigured), 503
// not_ready when the database fails. A provider that is not configured is intentionally unbound:
// it has no check.
Result<ApiResponse> Ready(Services& s, ProviderProbes& probes, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {}));
  Json checks = Json::object();
  const bool database = DatabaseReady(s.memory);
  checks["database"] = database ? "ready" : "unavailable";
  std::string embedding, extraction;
  {
    std::lock_guard<std::mutex> lock(probes.mu);  // one probe at a time; the others wait for it
    const auto now = std::chrono::steady_clock::now();
    if (!probes.at || now - *probes.at >= kProbeEvery) {
      probes.embedding = s.search.has_embedder() ? s.search.ProbeEmbedder() : "";
      probes.extraction = s.flush.available() ? s.flush.ProbeExtractor() : "";
      probes.at = now;
    }
    embedding = probes.embedding;
    extraction = probes.extraction;
  }
  bool degraded = false;
  if (!embedding.empty()) {
    checks["embedding"] = embedding;
    degraded = degraded || embedding != "ready";
  }
  if (!extraction.empty()) {
    checks["extraction"] = extraction;
    degraded = degraded || extraction != "ready";
  }
  const char* status = !database ? "not_ready" : degraded ? "degraded" : "ready";
  return ApiResponse{database ? 200 : 503, Json{{"status", status}, {"checks", checks}}};
}

Result<ApiResponse> Capabilities(Services& s, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {}));
  Json modes = Json::array({"auto", "fts"});
  if (s.search.has_embedder()) {
    modes.push_back("vector");
    modes.push_back("hybrid");
  }
  const bool extraction = s.flush.available();
  const bool generation = s.generate && s.generate->available();
  return ApiResponse{
      200, Json{{"source_types", Json::array({kContentSourceName})},
                {"artifact_families",
                 Json::array({kMemoryFamily, kHandoffFamily, kExperienceFamily, kSkillFamily})},
                {"memory_extraction", extraction},
                {"experience_generation", generation},
                {"managed_skill_generation", s.skill_generate && s.skill_generate->available()},
                {"external_skill_registry", s.external_skills && s.external_skills->configured()},
                {"handoff_generation", extraction},
                {"search_modes", modes},
                {"context_versions", Json::array({"powercontext.prepared-context.v1"})}}};
}

}  // namespace

void AddHealthRoutes(Router& router, Services services, const RouteOptions& options) {
  auto shared = std::make_shared<Services>(services);
  router.Add("GET", "/health/live", {"get_liveness", Permission::kPublic, ScopeIn::kNone},
             [](const ApiRequest&) -> Result<ApiResponse> {
               return ApiResponse{200, Json{{"status", "alive"}}};
             });
  auto probes = std::make_shared<ProviderProbes>();
  router.Add("GET", "/health/ready", {"get_readiness", Permission::kPublic, ScopeIn::kNone},
             [shared, probes,
              warning = options.security_warning](const ApiRequest& r) -> Result<ApiResponse> {
               PC_ASSIGN_OR_RETURN(ApiResponse out, Ready(*shared, *probes, r));
               if (!warning.empty()) {
                 out.body["checks"]["authentication"] = warning;
                 if (out.body["status"] == "ready") out.body["status"] = "degraded";
               }
               return out;
             });
  router.Add("GET", "/v1/capabilities", {"get_capabilities", Permission::kRead, ScopeIn::kNone},
             [shared](const ApiRequest& r) { return Capabilities(*shared, r); });
}

}  // namespace pc
