// Tokens (admin), the audit log (admin) and the OAuth protected-resource metadata that MCP
// clients read (RFC 9728; public). docs/security.md tells how they are used.
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "auth/request_context.h"
#include "common/clock.h"

namespace pc {
namespace {

Json TokenJson(const ApiToken& t) {
  auto opt_time = [](const std::optional<int64_t>& ms) {
    return ms ? Json(FormatTimestamp(*ms)) : Json();
  };
  const char* state = t.revoked_at_ms                                      ? "revoked"
                      : t.expires_at_ms && *t.expires_at_ms <= NowMillis() ? "expired"
                                                                           : "active";
  return Json{{"name", t.name},
              {"role", t.role},
              {"scopes", t.scope_patterns},
              {"state", state},
              {"created_by", t.created_by},
              {"created_at", FormatTimestamp(t.created_at_ms)},
              {"expires_at", opt_time(t.expires_at_ms)},
              {"revoked_at", opt_time(t.revoked_at_ms)}};
}

Result<ApiResponse> CreateToken(TokenService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"name", "role", "scopes", "expires"}));
  NewToken t;
  PC_ASSIGN_OR_RETURN(t.name, body.String("name"));
  PC_ASSIGN_OR_RETURN(t.role, body.String("role"));
  PC_ASSIGN_OR_RETURN(auto expires, body.OptString("expires"));
  t.expires = expires.value_or("");
  PC_ASSIGN_OR_RETURN(t.scope_patterns, body.Strings("scopes"));
  PC_ASSIGN_OR_RETURN(CreatedToken out, svc.Create(t, CurrentPrincipal().name));
  Json j2 = TokenJson(out.token);
  j2["token"] = out.secret;  // shown this once; the server keeps only its SHA-256
  ApiResponse res{201, j2};
  res.headers.emplace_back("Cache-Control", "no-store");
  return res;
}

Result<ApiResponse> ListTokens(TokenService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {}));
  PC_ASSIGN_OR_RETURN(std::vector<ApiToken> tokens, svc.List());
  Json items = Json::array();
  for (const ApiToken& t : tokens) items.push_back(TokenJson(t));
  return ApiResponse{200, Json{{"tokens", items}}};
}

Result<ApiResponse> RevokeToken(TokenService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"name"}));
  PC_ASSIGN_OR_RETURN(std::string name, body.String("name"));
  PC_RETURN_IF_ERROR(svc.Revoke(name));
  return ApiResponse{200, Json{{"name", name}, {"revoked", true}}};
}

Result<int64_t> TimeParam(const Query& q, const char* name) {
  auto v = q.OptString(name);
  if (!v) return int64_t{0};
  auto ms = ParseTimestamp(*v);
  if (!ms) return FieldError(name, std::string(name) + " is a UTC time like 2026-12-01T08:00:00Z");
  return *ms;
}

Result<ApiResponse> ListAudit(AuditService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(
      Query q, Query::From(req.query, {"scope_id", "actor", "since", "until", "limit", "cursor"}));
  AuditListRequest r;
  r.scope_id = q.OptString("scope_id").value_or("");
  r.actor = q.OptString("actor").value_or("");
  PC_ASSIGN_OR_RETURN(r.since_ms, TimeParam(q, "since"));
  PC_ASSIGN_OR_RETURN(r.until_ms, TimeParam(q, "until"));
  PC_ASSIGN_OR_RETURN(r.page, q.Page());
  PC_ASSIGN_OR_RETURN(AuditPage page, svc.List(r));
  Json items = Json::array();
  for (const AuditRecord& a : page.items) {
    Json targets = Json::parse(a.targets_json, nullptr, /*allow_exceptions=*/false);
    items.push_back(Json{{"seq", a.seq},
                         {"at", FormatTimestamp(a.at_ms)},
                         {"actor", a.actor},
                         {"operation", a.operation},
                         {"scope_id", a.scope_id.empty() ? Json() : Json(a.scope_id)},
                         {"targets", targets.is_discarded() ? Json::object() : targets},
                         {"result", a.result},
                         {"request_id", a.request_id.empty() ? Json() : Json(a.request_id)}});
  }
  return ApiResponse{200,
                     Json{{"events", items},
                          {"next_cursor", page.next_cursor ? Json(*page.next_cursor) : Json()}}};
}

// RFC 9728 §3: where the MCP endpoint's tokens come from. This server issues its own tokens
// (`powercontext token create`), so it names no authorization server.
Result<ApiResponse> ProtectedResource(const ApiRequest& req) {
  Json j{{"resource", req.base_url + "/mcp"},
         {"authorization_servers", Json::array()},
         {"bearer_methods_supported", {"header"}},
         {"resource_name", "PowerContext"}};
  return ApiResponse{200, j};
}

}  // namespace

void AddSecurityRoutes(Router& router, Services services) {
  TokenService& tokens = services.tokens;
  AuditService& audit = services.audit;
  router.Add("POST", "/v1/tokens", {"create_token", Permission::kAdmin, ScopeIn::kAll},
             Bind(tokens, CreateToken));
  router.Add("GET", "/v1/tokens", {"list_tokens", Permission::kAdmin, ScopeIn::kAll},
             Bind(tokens, ListTokens));
  router.Add("POST", "/v1/tokens/revoke", {"revoke_token", Permission::kAdmin, ScopeIn::kAll},
             Bind(tokens, RevokeToken));
  router.Add("GET", "/v1/audit", {"list_audit", Permission::kAdmin, ScopeIn::kAll},
             Bind(audit, ListAudit));
  for (const char* path :
       {"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"})
    router.Add("GET", path,
               {"get_protected_resource_metadata", Permission::kPublic, ScopeIn::kNone},
               ProtectedResource);
}

}  // namespace pc
