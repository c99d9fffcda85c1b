// The Handoff Report catalog routes (upstream RFC 0082, docs/handoff-reports.md): Projects and
// Workstreams, exactly the spec's schemas both ways (unknown fields are refused at every level).
// The catalog spans scopes, so a token limited to some scopes may use only `register` (for a
// scope it holds). A Workstream's descriptor may hold 32 references of 2,048-character URLs: its
// two routes take large bodies. Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/review_codec.h"
#include "api/router.h"

namespace pc {
namespace {

Json ProjectJson(const ReportProject& p) {
  return Json{{"schema", kProjectSchema},
              {"project_id", p.project_id},
              {"project_key", p.project_key},
              {"title", p.title},
              {"description", OptJson(p.description)},
              {"default_locale", p.default_locale},
              {"timezone", p.timezone},
              {"catalog_state", p.catalog_state},
              {"version", p.version}};
}

Json WorkstreamJson(const WorkstreamView& v) {
  const ReportWorkstream& w = v.record;
  Json refs = Json::array();
  for (const ReportExternalRef& r : w.external_refs)
    refs.push_back(Json{{"kind", r.kind},
                        {"provider", r.provider},
                        {"external_id", r.external_id},
                        {"url", OptJson(r.url)}});
  return Json{{"schema", kWorkstreamSchema},
              {"scope_id", v.scope_key},
              {"project_id", w.project_id},
              {"key", OptJson(w.key)},
              {"title", w.title},
              {"kind", w.kind},
              {"catalog_state", w.catalog_state},
              {"external_refs", refs},
              {"labels", w.labels},
              {"version", w.version}};
}

Result<bool> OptBool(const Json& j, const char* name, bool fallback) {
  if (!j.contains(name) || j[name].is_null()) return fallback;
  if (!j[name].is_boolean())
    return ReviewFieldError(name, std::string(name) + " must be a boolean");
  return j[name].get<bool>();
}

Result<CatalogPageRequest> PageFrom(const Json& j) {
  CatalogPageRequest r;
  PC_ASSIGN_OR_RETURN(r.cursor, BodyOptString(j, "cursor"));
  if (j.contains("limit") && !j["limit"].is_null()) {
    PC_ASSIGN_OR_RETURN(int64_t limit, BodyInt(j, "limit", ""));
    if (limit < 1 || limit > kMaxCatalogPage)
      return ReviewFieldError("limit", "limit must be between 1 and 100");
    r.limit = static_cast<int>(limit);
  }
  PC_ASSIGN_OR_RETURN(r.include_archived, OptBool(j, "include_archived", false));
  return r;
}

Result<std::vector<std::string>> StringsFrom(const Json& j, const std::string& at) {
  if (!j.is_array()) return ReviewFieldError(at, at + " must be an array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) {
      const std::string f = at + "[" + std::to_string(i) + "]";
      return ReviewFieldError(f, f + " must be a string");
    }
    out.push_back(j[i].get<std::string>());
  }
  return out;
}

Result<std::vector<ReportExternalRef>> RefsFrom(const Json& j, const std::string& at) {
  if (!j.is_array()) return ReviewFieldError(at, at + " must be an array");
  std::vector<ReportExternalRef> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string f = at + "[" + std::to_string(i) + "]";
    PC_RETURN_IF_ERROR(BodyShape(j[i], f, {"kind", "provider", "external_id", "url"},
                                 {"kind", "provider", "external_id", "url"}));
    ReportExternalRef r;
    PC_ASSIGN_OR_RETURN(r.kind, BodyString(j[i], "kind", f));
    PC_ASSIGN_OR_RETURN(r.provider, BodyString(j[i], "provider", f));
    PC_ASSIGN_OR_RETURN(r.external_id, BodyString(j[i], "external_id", f));
    PC_ASSIGN_OR_RETURN(r.url, BodyOptString(j[i], "url"));
    out.push_back(std::move(r));
  }
  return out;
}

// A required "schema" member naming `schema`.
Status SchemaIs(const Json& j, const std::string& at, const char* schema) {
  PC_ASSIGN_OR_RETURN(std::string s, BodyString(j, "schema", at));
  if (s != schema) return ReviewFieldError(at + ".schema", at + ".schema must be " + schema);
  return Status::Ok();
}

Result<ApiResponse> CreateProject(CatalogService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"project_key", "title", "description", "default_locale", "timezone"},
                {"project_key", "title"}));
  CreateProjectRequest r;
  PC_ASSIGN_OR_RETURN(r.project_key, BodyString(j, "project_key", ""));
  PC_ASSIGN_OR_RETURN(r.title, BodyString(j, "title", ""));
  PC_ASSIGN_OR_RETURN(r.description, BodyOptString(j, "description"));
  PC_ASSIGN_OR_RETURN(auto locale, BodyOptString(j, "default_locale"));
  PC_ASSIGN_OR_RETURN(auto timezone, BodyOptString(j, "timezone"));
  if (locale) r.default_locale = *locale;
  if (timezone) r.timezone = *timezone;
  PC_ASSIGN_OR_RETURN(ReportProject p, svc.CreateProject(r, ReviewActor()));
  return ApiResponse{201, ProjectJson(p)};
}

Result<ApiResponse> ListProjects(CatalogService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"cursor", "limit", "include_archived"}, {}));
  PC_ASSIGN_OR_RETURN(CatalogPageRequest page, PageFrom(j));
  PC_ASSIGN_OR_RETURN(CatalogPage<ReportProject> out, svc.ListProjects(page));
  Json items = Json::array();
  for (const ReportProject& p : out.items) items.push_back(ProjectJson(p));
  return ApiResponse{200, Json{{"items", items}, {"next_cursor", OptJson(out.next_cursor)}}};
}

Result<ApiResponse> GetProject(CatalogService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"project_id"}, {"project_id"}));
  PC_ASSIGN_OR_RETURN(std::string id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(ReportProject p, svc.GetProject(id));
  return ApiResponse{200, ProjectJson(p)};
}

Result<ApiResponse> UpdateProject(CatalogService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"project", "expected_version"}, {"project", "expected_version"}));
  const Json& d = j["project"];
  const char* fields[] = {"schema",         "project_id", "project_key",   "title",  "description",
                          "default_locale", "timezone",   "catalog_state", "version"};
  PC_RETURN_IF_ERROR(BodyShape(d, "project",
                               {fields[0], fields[1], fields[2], fields[3], fields[4], fields[5],
                                fields[6], fields[7], fields[8]},
                               {fields[0], fields[1], fields[2], fields[3], fields[4], fields[5],
                                fields[6], fields[7], fields[8]}));
  PC_RETURN_IF_ERROR(SchemaIs(d, "project", kProjectSchema));
  ReportProject p;
  PC_ASSIGN_OR_RETURN(p.project_id, BodyString(d, "project_id", "project"));
  PC_ASSIGN_OR_RETURN(p.project_key, BodyString(d, "project_key", "project"));
  PC_ASSIGN_OR_RETURN(p.title, BodyString(d, "title", "project"));
  PC_ASSIGN_OR_RETURN(p.description, BodyOptString(d, "description"));
  PC_ASSIGN_OR_RETURN(p.default_locale, BodyString(d, "default_locale", "project"));
  PC_ASSIGN_OR_RETURN(p.timezone, BodyString(d, "timezone", "project"));
  PC_ASSIGN_OR_RETURN(p.catalog_state, BodyString(d, "catalog_state", "project"));
  PC_ASSIGN_OR_RETURN(p.version, BodyInt(d, "version", "project"));
  PC_ASSIGN_OR_RETURN(int64_t expected, BodyInt(j, "expected_version", ""));
  PC_ASSIGN_OR_RETURN(ReportProject out, svc.UpdateProject(p, expected, ReviewActor()));
  return ApiResponse{200, ProjectJson(out)};
}

Result<ApiResponse> RegisterWorkstream(CatalogService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "",
                               {"project_id", "scope_id", "key", "title", "kind", "catalog_state",
                                "external_refs", "labels"},
                               {"project_id", "scope_id", "title", "kind"}));
  RegisterWorkstreamRequest r;
  PC_ASSIGN_OR_RETURN(r.project_id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(r.scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(r.key, BodyOptString(j, "key"));
  PC_ASSIGN_OR_RETURN(r.title, BodyString(j, "title", ""));
  PC_ASSIGN_OR_RETURN(r.kind, BodyString(j, "kind", ""));
  PC_ASSIGN_OR_RETURN(auto state, BodyOptString(j, "catalog_state"));
  if (state) r.catalog_state = *state;
  if (j.contains("external_refs") && !j["external_refs"].is_null()) {
    PC_ASSIGN_OR_RETURN(r.external_refs, RefsFrom(j["external_refs"], "external_refs"));
  }
  if (j.contains("labels") && !j["labels"].is_null()) {
    PC_ASSIGN_OR_RETURN(r.labels, StringsFrom(j["labels"], "labels"));
  }
  PC_ASSIGN_OR_RETURN(WorkstreamView w, svc.RegisterWorkstream(r, ReviewActor()));
  return ApiResponse{201, WorkstreamJson(w)};
}

Result<ApiResponse> ListWorkstreams(CatalogService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"project_id", "cursor", "limit", "include_archived"}, {"project_id"}));
  PC_ASSIGN_OR_RETURN(std::string project_id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(CatalogPageRequest page, PageFrom(j));
  PC_ASSIGN_OR_RETURN(CatalogPage<WorkstreamView> out, svc.ListWorkstreams(project_id, page));
  Json items = Json::array();
  for (const WorkstreamView& w : out.items) items.push_back(WorkstreamJson(w));
  return ApiResponse{200, Json{{"items", items}, {"next_cursor", OptJson(out.next_cursor)}}};
}

Result<ApiResponse> UpdateWorkstream(CatalogService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"workstream", "expected_version"}, {"workstream", "expected_version"}));
  const Json& d = j["workstream"];
  PC_RETURN_IF_ERROR(BodyShape(d, "workstream",
                               {"schema", "scope_id", "project_id", "key", "title", "kind",
                                "catalog_state", "external_refs", "labels", "version"},
                               {"schema", "scope_id", "project_id", "key", "title", "kind",
                                "catalog_state", "external_refs", "labels", "version"}));
  PC_RETURN_IF_ERROR(SchemaIs(d, "workstream", kWorkstreamSchema));
  ReportWorkstream w;
  PC_ASSIGN_OR_RETURN(w.scope_id, BodyString(d, "scope_id", "workstream"));
  PC_ASSIGN_OR_RETURN(w.project_id, BodyString(d, "project_id", "workstream"));
  PC_ASSIGN_OR_RETURN(w.key, BodyOptString(d, "key"));
  PC_ASSIGN_OR_RETURN(w.title, BodyString(d, "title", "workstream"));
  PC_ASSIGN_OR_RETURN(w.kind, BodyString(d, "kind", "workstream"));
  PC_ASSIGN_OR_RETURN(w.catalog_state, BodyString(d, "catalog_state", "workstream"));
  PC_ASSIGN_OR_RETURN(w.external_refs, RefsFrom(d["external_refs"], "workstream.external_refs"));
  PC_ASSIGN_OR_RETURN(w.labels, StringsFrom(d["labels"], "workstream.labels"));
  PC_ASSIGN_OR_RETURN(w.version, BodyInt(d, "version", "workstream"));
  PC_ASSIGN_OR_RETURN(int64_t expected, BodyInt(j, "expected_version", ""));
  PC_ASSIGN_OR_RETURN(WorkstreamView out, svc.UpdateWorkstream(w, expected, ReviewActor()));
  return ApiResponse{200, WorkstreamJson(out)};
}

}  // namespace

void AddReportRoutes(Router& router, Services services) {
  CatalogService* catalog = services.report_catalog;
  auto bind =
      [catalog](Result<ApiResponse> (*fn)(CatalogService&, const ApiRequest&)) -> ApiHandler {
    return [catalog, fn](const ApiRequest& req) -> Result<ApiResponse> {
      if (!catalog)
        return Status(Code::kCapabilityUnavailable, "the Handoff Report catalog is not served");
      return fn(*catalog, req);
    };
  };
  router.Add("POST", "/v1/handoff-reports/projects/create",
             {"create_handoff_report_project", Permission::kWrite, ScopeIn::kAll},
             bind(CreateProject));
  router.Add("POST", "/v1/handoff-reports/projects/list",
             {"list_handoff_report_projects", Permission::kRead, ScopeIn::kAll},
             bind(ListProjects));
  router.Add("POST", "/v1/handoff-reports/projects/get",
             {"get_handoff_report_project", Permission::kRead, ScopeIn::kAll}, bind(GetProject));
  router.Add("POST", "/v1/handoff-reports/projects/update",
             {"update_handoff_report_project", Permission::kWrite, ScopeIn::kAll},
             bind(UpdateProject));
  router.Add(
      "POST", "/v1/handoff-reports/workstreams/register",
      {"register_handoff_report_workstream", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
      bind(RegisterWorkstream));
  router.Add("POST", "/v1/handoff-reports/workstreams/list",
             {"list_handoff_report_workstreams", Permission::kRead, ScopeIn::kAll},
             bind(ListWorkstreams));
  router.Add(
      "POST", "/v1/handoff-reports/workstreams/update",
      {"update_handoff_report_workstream", Permission::kWrite, ScopeIn::kAll, BodySize::kLarge},
      bind(UpdateWorkstream));
}

}  // namespace pc
