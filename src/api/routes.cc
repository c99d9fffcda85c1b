// Our own routes (docs/compatibility.md: what we add to the spec): scopes, listings at any
// revision with pages, entry versions, revision history, reindexing, per-mode search
// capabilities. Decode, call the service, encode. No logic of their own.
#include <charconv>
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "api/work_routes.h"
#include "auth/request_context.h"
#include "common/json_parse.h"
#include "service/core/validation.h"
#include "wire/error_map.h"

namespace pc {
namespace {

ApiResponse Ok(Json body, int status = 200) { return ApiResponse{status, std::move(body)}; }

Result<int64_t> PathInt(const std::string& s, const char* name) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    return FieldError(std::string(name), std::string(name) + " must be an integer");
  return v;
}

Result<ApiResponse> CreateScope(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"key"}));
  PC_ASSIGN_OR_RETURN(std::string key, body.String("key"));
  PC_ASSIGN_OR_RETURN(ScopeOutcome out, svc.CreateScope(key));
  Json j = ToJson(out.scope);
  j["created"] = out.created;
  return Ok(j, out.created ? 201 : 200);
}

Result<ApiResponse> ListScopes(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"limit", "cursor", "key"}));
  PC_ASSIGN_OR_RETURN(PageRequest page, q.Page());
  Json items = Json::array();
  if (auto key = q.OptString("key")) {  // lookup by key: a page of zero or one
    if (!page.cursor.empty())
      return FieldError("cursor", "cursor does not apply to a lookup by key");
    Result<Scope> s = svc.GetScopeByKey(*key);
    if (!s.ok() && s.status().code() != Code::kNotFound) return std::move(s).TakeStatus();
    if (s.ok() && CurrentPrincipal().MaySee(s->key)) items.push_back(ToJson(*s));
    return Ok(Json{{"scopes", items}, {"next_cursor", nullptr}});
  }
  // A token limited by scope patterns sees only those scopes: pages are filled from as many
  // store pages as it takes, and the cursor is always a scope it may see.
  const Principal& who = CurrentPrincipal();
  if (!who.Restricted()) {
    PC_ASSIGN_OR_RETURN(ScopesPage out, svc.ListScopes(page));
    for (const Scope& s : out.items) items.push_back(ToJson(s));
    return Ok(Json{{"scopes", items}, {"next_cursor", NextCursor(out.next_cursor)}});
  }
  std::optional<std::string> next;
  while (true) {
    PC_ASSIGN_OR_RETURN(ScopesPage out, svc.ListScopes(page));
    for (size_t i = 0; i < out.items.size(); ++i) {
      if (!who.MaySee(out.items[i].key)) continue;
      if (items.size() == static_cast<size_t>(page.limit)) {
        next = items.back()["scope_id"].get<std::string>();  // more remain after the full page
        break;
      }
      items.push_back(ToJson(out.items[i]));
    }
    if (next || !out.next_cursor) break;
    page.cursor = *out.next_cursor;
  }
  return Ok(Json{{"scopes", items}, {"next_cursor", NextCursor(next)}});
}

Json SettingsJson(const ScopeSettingsView& v) {
  return Json{{"scope_id", v.scope_id}, {"overrides", v.overrides}, {"effective", v.effective}};
}

// The write gates' settings of a scope (service/memory/write_policy.h).
Result<ApiResponse> GetSettings(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {}));
  PC_ASSIGN_OR_RETURN(ScopeSettingsView v, svc.GetSettings(req.path_params[0]));
  return Ok(SettingsJson(v));
}

// {"reconcile": "reject", "require_evidence": null, …}: a value sets, null goes back to the
// default.
Result<ApiResponse> PutSettings(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  if (!j.is_object()) return FieldError("body", "the body must be a JSON object of settings");
  std::map<std::string, std::optional<std::string>> changes;
  for (const auto& [name, value] : j.items()) {
    if (value.is_null())
      changes[name] = std::nullopt;
    else if (value.is_string())
      changes[name] = value.get<std::string>();
    else if (value.is_boolean())
      changes[name] = value.get<bool>() ? "true" : "false";
    else
      return FieldError(name, name + " must be a string, a boolean or null");
  }
  PC_ASSIGN_OR_RETURN(ScopeSettingsView v, svc.SetSettings(req.path_params[0], changes));
  return Ok(SettingsJson(v));
}

Result<ApiResponse> GetScope(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {}));
  PC_ASSIGN_OR_RETURN(Scope s, svc.GetScope(req.path_params[0]));
  return Ok(ToJson(s));
}

Result<ApiResponse> ListEntries(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "include_inactive", "revision",
                                                       "limit", "cursor", "min_revision"}));
  ListEntriesRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(r.min_revision, q.OptInt("min_revision"));
  PC_ASSIGN_OR_RETURN(r.include_inactive, q.Bool("include_inactive", false));
  PC_ASSIGN_OR_RETURN(r.revision, q.OptInt("revision"));
  PC_ASSIGN_OR_RETURN(r.page, q.Page());
  PC_ASSIGN_OR_RETURN(EntriesPage out, svc.ListEntries(r));
  Json items = Json::array();
  for (const ManifestItem& m : out.items) items.push_back(ToJson(m, out.memory));
  return Ok(Json{{"memory", ToJson(out.memory)},
                 {"entries", items},
                 {"next_cursor", NextCursor(out.next_cursor)}});
}

Result<ApiResponse> ListVersions(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "limit", "cursor"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(PageRequest page, q.Page());
  PC_ASSIGN_OR_RETURN(VersionsPage out, svc.ListVersions(scope_id, req.path_params[0], page));
  Json items = Json::array();
  for (const EntryVersion& v : out.items) items.push_back(ToJson(v));
  return Ok(Json{{"entry_id", out.entry_id},
                 {"versions", items},
                 {"next_cursor", NextCursor(out.next_cursor)}});
}

Result<ApiResponse> ListRevisions(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "limit", "cursor"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(PageRequest page, q.Page());
  PC_ASSIGN_OR_RETURN(RevisionsPage out, svc.ListRevisions(scope_id, page));
  Json items = Json::array();
  for (const RevisionInfo& r : out.items) items.push_back(ToJson(r));
  return Ok(Json{{"head", ToJson(out.head)},
                 {"revisions", items},
                 {"next_cursor", NextCursor(out.next_cursor)}});
}

Result<ApiResponse> GetRevision(MemoryService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "limit", "cursor"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(PageRequest page, q.Page());
  PC_ASSIGN_OR_RETURN(int64_t revision, PathInt(req.path_params[0], "revision"));
  PC_ASSIGN_OR_RETURN(RevisionDetail out, svc.GetRevision(scope_id, revision, page));
  Json manifest = Json::array();
  for (const ManifestItem& m : out.manifest) manifest.push_back(ToJson(m, out.info.memory));
  Json j = ToJson(out.info);
  j["manifest"] = manifest;
  j["next_cursor"] = NextCursor(out.next_cursor);
  return Ok(j);
}

// Our per-mode account (why vector search is unavailable, and for which scope); the spec's
// GET /v1/capabilities answers the server-wide summary (api/health_routes.cc).
Result<ApiResponse> SearchCapabilities(SearchService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id"}));
  auto scope_id = q.OptString("scope_id");
  if (scope_id && scope_id->empty())
    return FieldError("scope_id", "scope_id is empty; leave it out for the server-wide answer");
  PC_ASSIGN_OR_RETURN(auto caps, svc.Capabilities(scope_id.value_or("")));
  Json modes = Json::object();
  for (const Capability& c : caps)
    modes[c.mode] =
        Json{{"available", c.available}, {"reason", c.available ? Json() : Json(c.reason)}};
  return Ok(Json{{"modes", modes}});
}

Result<ApiResponse> Reindex(SearchService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(ReindexResult out, svc.Reindex(scope_id));
  return Ok(Json{{"embedded", out.embedded}, {"missing", out.missing}});
}

}  // namespace

void AddRoutes(Router& router, Services services, const RouteOptions& options) {
  MemoryService& memory = services.memory;
  SearchService& search = services.search;
  router.Add("GET", "/v1/health", {"get_health", Permission::kRead, ScopeIn::kNone},
             [](const ApiRequest&) -> Result<ApiResponse> {
               return Ok(Json{{"status", "ok"}, {"version", POWERCONTEXT_VERSION}});
             });
  router.Add("POST", "/v1/scopes", {"create_scope", Permission::kWrite, ScopeIn::kBodyKey},
             Bind(memory, CreateScope));
  router.Add("GET", "/v1/scopes", {"list_scopes", Permission::kRead, ScopeIn::kFiltered},
             Bind(memory, ListScopes));
  router.Add("GET", "/v1/scopes/([^/]+)", {"get_scope", Permission::kRead, ScopeIn::kPath},
             Bind(memory, GetScope));
  router.Add("GET", "/v1/scopes/([^/]+)/settings",
             {"get_scope_settings", Permission::kRead, ScopeIn::kPath}, Bind(memory, GetSettings));
  router.Add("PUT", "/v1/scopes/([^/]+)/settings",
             {"set_scope_settings", Permission::kAdmin, ScopeIn::kPath}, Bind(memory, PutSettings));
  router.Add("GET", "/v1/memory/entries",
             {"list_entries_at_revision", Permission::kRead, ScopeIn::kQuery},
             Bind(memory, ListEntries));
  router.Add("GET", "/v1/memory/entries/([^/]+)/versions",
             {"list_entry_versions", Permission::kRead, ScopeIn::kQuery},
             Bind(memory, ListVersions));
  router.Add("GET", "/v1/memory/revisions", {"list_revisions", Permission::kRead, ScopeIn::kQuery},
             Bind(memory, ListRevisions));
  router.Add("GET", "/v1/memory/revisions/([^/]+)",
             {"get_revision", Permission::kRead, ScopeIn::kQuery}, Bind(memory, GetRevision));
  router.Add("POST", "/v1/memory/reindex", {"reindex_memory", Permission::kAdmin, ScopeIn::kBody},
             Bind(search, Reindex));
  router.Add("GET", "/v1/capabilities/search",
             {"get_search_capabilities", Permission::kRead, ScopeIn::kQueryOptional},
             Bind(search, SearchCapabilities));
  AddMemoryRoutes(router, services);
  AddSourceRoutes(router, services);
  AddContextRoutes(router, services);
  AddHandoffRoutes(router, services);
  AddWorkRoutes(router, services);
  AddReviewRoutes(router, services);
  AddSkillRoutes(router, services);
  AddReportRoutes(router, services);
  AddHealthRoutes(router, services, options);
  AddOpenApiRoutes(router);
  AddConsoleRoutes(router);
  AddStatsRoutes(router, services);
  AddSecurityRoutes(router, services);
  AddMetricsRoutes(router);
  router.SetOnDenied([&audit = services.audit](const Status& refusal, const char* operation) {
    audit.RecordDenied(operation, HttpStatusFor(refusal.code()), "role or scope");
  });
  router.SetFindScope([&memory](const ScopeRef& scope) { return memory.FindScope(scope); });
}

}  // namespace pc
