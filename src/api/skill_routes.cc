// The spec's external Skill operations (RFC 0051's host-local registry; docs/skills.md): scan,
// list and resolve, exactly their schemas both ways. Import (a managed Skill candidate from a
// package, by the model) comes with managed Skills; until then its route is not served (404).
#include <memory>
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "service/skills/external_skills.h"

namespace pc {
namespace {

Json RegistrationJson(const ExternalSkillRegistration& r) {
  return Json{{"external_skill_id", r.external_skill_id},
              {"provider", kExternalSkillProvider},
              {"agent_kind", kExternalSkillProvider},
              {"host_id", r.host_id},
              {"installation_scope", r.installation_scope},
              {"locator", r.locator},
              {"fingerprint", r.fingerprint},
              {"name", r.name},
              {"description", r.description}};
}

Json ResolutionJson(const ExternalSkillResolution& r) {
  return Json{{"registration", RegistrationJson(r.registration)},
              {"status", r.available ? "available" : "unavailable"},
              {"entrypoint", r.available ? Json(r.entrypoint) : Json()}};
}

// The body's scope, as the router parsed it (or parsed here, naming why it is not one).
Result<ScopeRef> ScopeOf(const ApiRequest& req, const Body& body) {
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  return ScopeRef::Given(req.ParsedScope(), std::move(scope_id));
}

Result<ApiResponse> Scan(ExternalSkillRegistry& registry, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id"}));
  PC_ASSIGN_OR_RETURN(ScopeRef scope, ScopeOf(req, body));
  PC_ASSIGN_OR_RETURN(ExternalSkillScan scan, registry.Scan(scope));
  Json registrations = Json::array();
  for (const ExternalSkillRegistration& r : scan.registrations)
    registrations.push_back(RegistrationJson(r));
  return ApiResponse{200, Json{{"registrations", registrations}, {"skipped", scan.skipped}}};
}

Result<ApiResponse> List(ExternalSkillRegistry& registry, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "include_unavailable"}));
  PC_ASSIGN_OR_RETURN(ScopeRef scope, ScopeOf(req, body));
  PC_ASSIGN_OR_RETURN(std::optional<bool> all, body.OptBool("include_unavailable"));
  PC_ASSIGN_OR_RETURN(std::vector<ExternalSkillResolution> skills,
                      registry.List(scope, all.value_or(false)));
  Json out = Json::array();
  for (const ExternalSkillResolution& r : skills) out.push_back(ResolutionJson(r));
  return ApiResponse{200, Json{{"skills", out}}};
}

Result<ApiResponse> Resolve(ExternalSkillRegistry& registry, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "external_skill_id", "fingerprint"}));
  PC_ASSIGN_OR_RETURN(ScopeRef scope, ScopeOf(req, body));
  PC_ASSIGN_OR_RETURN(std::string id, body.String("external_skill_id"));
  PC_ASSIGN_OR_RETURN(std::string fingerprint, body.String("fingerprint"));
  PC_ASSIGN_OR_RETURN(ExternalSkillResolution r, registry.Resolve(scope, id, fingerprint));
  return ApiResponse{200, ResolutionJson(r)};
}

}  // namespace

void AddSkillRoutes(Router& router, Services services) {
  // Without a registry (a router built for a test) the operations answer as with no roots.
  ExternalSkillRegistry* registry = services.external_skills;
  auto bind = [registry](Result<ApiResponse> (*fn)(ExternalSkillRegistry&,
                                                   const ApiRequest&)) -> ApiHandler {
    return [registry, fn](const ApiRequest& req) -> Result<ApiResponse> {
      if (!registry) return ExternalSkillRegistryUnavailable();
      return fn(*registry, req);
    };
  };
  // A scan changes only this server's registry (no store write), but it is a change: writers.
  router.Add("POST", "/v1/external-skills/scan",
             {"scan_external_skills", Permission::kWrite, ScopeIn::kBody}, bind(Scan));
  router.Add("POST", "/v1/external-skills/list",
             {"list_external_skills", Permission::kRead, ScopeIn::kBody}, bind(List));
  router.Add("POST", "/v1/external-skills/resolve",
             {"resolve_external_skill", Permission::kRead, ScopeIn::kBody}, bind(Resolve));
}

}  // namespace pc
