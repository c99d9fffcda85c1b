// The Handoff Report catalog routes (upstream RFC 0082, docs/handoff-reports.md): Projects and
// Workstreams, exactly the spec's schemas both ways (unknown fields are refused at every level).
// The catalog spans scopes, so a token limited to some scopes may use only `register` (for a
// scope it holds). A Workstream's descriptor may hold 32 references of 2,048-character URLs: its
// two routes take large bodies. Workspace bindings, the Activity log and the report itself
// (api/report_codec.h) are here too. Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/handoff_codec.h"
#include "api/report_codec.h"
#include "api/review_codec.h"
#include "api/router.h"
#include "common/clock.h"

namespace pc {
namespace {

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

// One HandoffReportExternalReference (`at` names it in errors).
Result<ReportExternalRef> RefFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(BodyShape(j, at, {"kind", "provider", "external_id", "url"},
                               {"kind", "provider", "external_id", "url"}));
  ReportExternalRef r;
  PC_ASSIGN_OR_RETURN(r.kind, BodyString(j, "kind", at));
  PC_ASSIGN_OR_RETURN(r.provider, BodyString(j, "provider", at));
  PC_ASSIGN_OR_RETURN(r.external_id, BodyString(j, "external_id", at));
  PC_ASSIGN_OR_RETURN(r.url, BodyOptString(j, "url"));
  return r;
}

Result<std::vector<ReportExternalRef>> RefsFrom(const Json& j, const std::string& at) {
  return ItemsFrom<ReportExternalRef>(j, at, "references", RefFrom);
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
  return ApiResponse{201, WorkstreamJson(w.record, w.scope_key)};
}

Result<ApiResponse> ListWorkstreams(CatalogService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"project_id", "cursor", "limit", "include_archived"}, {"project_id"}));
  PC_ASSIGN_OR_RETURN(std::string project_id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(CatalogPageRequest page, PageFrom(j));
  PC_ASSIGN_OR_RETURN(CatalogPage<WorkstreamView> out, svc.ListWorkstreams(project_id, page));
  Json items = Json::array();
  for (const WorkstreamView& w : out.items) items.push_back(WorkstreamJson(w.record, w.scope_key));
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
  return ApiResponse{200, WorkstreamJson(out.record, out.scope_key)};
}

Result<std::optional<int64_t>> OptInt(const Json& j, const char* name) {
  if (!j.contains(name) || j[name].is_null()) return std::optional<int64_t>();
  PC_ASSIGN_OR_RETURN(int64_t v, BodyInt(j, name, ""));
  return std::optional<int64_t>(v);
}

// An RFC 3339 date-time member (nullopt when absent or null); `code` refuses a malformed one.
Result<std::optional<int64_t>> OptTime(const Json& j, const char* name, const std::string& at,
                                       Code code = Code::kInvalidArgument) {
  PC_ASSIGN_OR_RETURN(std::optional<std::string> text, BodyOptString(j, name));
  if (!text) return std::optional<int64_t>();
  std::optional<int64_t> ms = ParseRfc3339(*text);
  const std::string field = at.empty() ? name : at + "." + name;
  if (!ms)
    return Status(code, field + " must be an RFC 3339 date-time such as 2026-08-09T23:59:59+08:00")
        .WithDetail("field", field);
  return ms;
}

Result<ReportRepositoryRef> RepositoryRefFrom(const Json& j) {
  PC_RETURN_IF_ERROR(BodyShape(j, "repository_ref",
                               {"provider", "repository_id", "normalized_remote", "subpath"},
                               {"provider", "repository_id", "normalized_remote", "subpath"}));
  ReportRepositoryRef r;
  PC_ASSIGN_OR_RETURN(r.provider, BodyString(j, "provider", "repository_ref"));
  PC_ASSIGN_OR_RETURN(r.repository_id, BodyOptString(j, "repository_id"));
  PC_ASSIGN_OR_RETURN(r.normalized_remote, BodyOptString(j, "normalized_remote"));
  PC_ASSIGN_OR_RETURN(r.subpath, BodyOptString(j, "subpath"));
  return r;
}

Result<ApiResponse> GetWorkspace(WorkspaceService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"workspace_instance_id"}, {"workspace_instance_id"}));
  PC_ASSIGN_OR_RETURN(std::string id, BodyString(j, "workspace_instance_id", ""));
  PC_ASSIGN_OR_RETURN(WorkspaceBinding b, svc.Get(id));
  return ApiResponse{200, BindingJson(b)};
}

Result<ApiResponse> AttachWorkspace(WorkspaceService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  const auto fields = {"workspace_instance_id", "project_id", "repository_ref", "expected_version"};
  PC_RETURN_IF_ERROR(BodyShape(j, "", fields, fields));
  AttachWorkspaceRequest r;
  PC_ASSIGN_OR_RETURN(r.workspace_instance_id, BodyString(j, "workspace_instance_id", ""));
  PC_ASSIGN_OR_RETURN(r.project_id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(r.repository_ref, RepositoryRefFrom(j["repository_ref"]));
  PC_ASSIGN_OR_RETURN(r.expected_version, OptInt(j, "expected_version"));
  PC_ASSIGN_OR_RETURN(WorkspaceBinding b, svc.Attach(r));
  return ApiResponse{200, BindingJson(b)};
}

Result<ApiResponse> DetachWorkspace(WorkspaceService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"workspace_instance_id", "expected_version"},
                               {"workspace_instance_id", "expected_version"}));
  PC_ASSIGN_OR_RETURN(std::string id, BodyString(j, "workspace_instance_id", ""));
  PC_ASSIGN_OR_RETURN(int64_t expected, BodyInt(j, "expected_version", ""));
  PC_ASSIGN_OR_RETURN(WorkspaceBinding b, svc.Detach(id, expected));
  return ApiResponse{200, BindingJson(b)};
}

Result<ApiResponse> RecordActivity(ActivityService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(
      j, "",
      {"project_id", "scope_id", "source", "source_event_id", "source_ref", "occurred_at",
       "time_basis", "title", "summary", "agent", "session_id", "vcs_context", "evidence_refs"},
      {"project_id", "source", "source_event_id", "time_basis"}));
  RecordActivityRequest r;
  ReportActivity& a = r.event;
  PC_ASSIGN_OR_RETURN(a.project_id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(r.scope, BodyOptString(j, "scope_id"));
  PC_ASSIGN_OR_RETURN(a.source, BodyString(j, "source", ""));
  PC_ASSIGN_OR_RETURN(a.source_event_id, BodyString(j, "source_event_id", ""));
  if (j.contains("source_ref") && !j["source_ref"].is_null()) {
    PC_ASSIGN_OR_RETURN(a.source_ref, RefFrom(j["source_ref"], "source_ref"));
  }
  PC_ASSIGN_OR_RETURN(a.occurred_at_ms, OptTime(j, "occurred_at", ""));
  PC_ASSIGN_OR_RETURN(a.time_basis, BodyString(j, "time_basis", ""));
  PC_ASSIGN_OR_RETURN(a.title, BodyOptString(j, "title"));
  PC_ASSIGN_OR_RETURN(a.summary, BodyOptString(j, "summary"));
  if (j.contains("agent") && !j["agent"].is_null()) {
    PC_RETURN_IF_ERROR(BodyShape(j["agent"], "agent", {"provider", "label"}, {}));
    ReportActivityAgent g;
    PC_ASSIGN_OR_RETURN(g.provider, BodyOptString(j["agent"], "provider"));
    PC_ASSIGN_OR_RETURN(g.label, BodyOptString(j["agent"], "label"));
    a.agent = g;
  }
  PC_ASSIGN_OR_RETURN(a.session_id, BodyOptString(j, "session_id"));
  if (j.contains("vcs_context") && !j["vcs_context"].is_null()) {
    PC_RETURN_IF_ERROR(BodyShape(j["vcs_context"], "vcs_context", {"branch", "head_revision"}, {}));
    ReportVcsContext v;
    PC_ASSIGN_OR_RETURN(v.branch, BodyOptString(j["vcs_context"], "branch"));
    PC_ASSIGN_OR_RETURN(v.head_revision, BodyOptString(j["vcs_context"], "head_revision"));
    a.vcs_context = v;
  }
  if (j.contains("evidence_refs") && !j["evidence_refs"].is_null()) {
    PC_ASSIGN_OR_RETURN(a.evidence_refs, RefsFrom(j["evidence_refs"], "evidence_refs"));
  }
  PC_ASSIGN_OR_RETURN(ActivityView v, svc.Record(r));
  return ApiResponse{201, Json{{"cursor", v.event.cursor}, {"event", ActivityJson(v)}}};
}

Result<ApiResponse> ListActivities(ActivityService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "",
                               {"project_id", "period_start", "period_end", "sources",
                                "after_cursor", "through_cursor", "limit"},
                               {"project_id"}));
  ListActivitiesRequest r;
  PC_ASSIGN_OR_RETURN(r.project_id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(r.period_start_ms, OptTime(j, "period_start", ""));
  PC_ASSIGN_OR_RETURN(r.period_end_ms, OptTime(j, "period_end", ""));
  if (j.contains("sources") && !j["sources"].is_null()) {
    PC_ASSIGN_OR_RETURN(r.sources, StringsFrom(j["sources"], "sources"));
  }
  PC_ASSIGN_OR_RETURN(auto after, OptInt(j, "after_cursor"));
  r.after_cursor = after.value_or(0);
  PC_ASSIGN_OR_RETURN(r.through_cursor, OptInt(j, "through_cursor"));
  PC_ASSIGN_OR_RETURN(auto limit, OptInt(j, "limit"));
  if (limit && (*limit < 1 || *limit > kMaxActivityPage))
    return ReviewFieldError("limit", "limit must be between 1 and 100");
  r.limit = static_cast<int>(limit.value_or(kDefaultActivityPage));
  PC_ASSIGN_OR_RETURN(ActivityPage page, svc.List(r));
  Json items = Json::array();
  for (const ActivityView& v : page.items) items.push_back(ActivityJson(v));
  return ApiResponse{200, Json{{"items", items},
                               {"next_cursor", page.next_cursor ? Json(*page.next_cursor) : Json()},
                               {"high_watermark", page.high_watermark}}};
}

Result<ApiResponse> PurgeActivities(ActivityService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"project_id", "observed_before"}, {"project_id", "observed_before"}));
  PC_ASSIGN_OR_RETURN(std::string project_id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(std::optional<int64_t> before, OptTime(j, "observed_before", ""));
  if (!before) return ReviewFieldError("observed_before", "observed_before is required");
  PC_ASSIGN_OR_RETURN(int64_t deleted, svc.Purge(project_id, *before));
  return ApiResponse{200, Json{{"deleted_count", deleted}}};
}

// A download's file name: the Project id (only [A-Za-z0-9_-]), the period, a digest prefix.
std::string ReportFileName(const HandoffReport& r, const std::string& selection_digest) {
  std::string name = "handoff-report-";
  for (char c : r.project.project_id)
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  if (r.period)
    name += "-" + FormatTimestamp(r.period->start_ms).substr(0, 10) + "-" +
            FormatTimestamp(r.period->end_ms).substr(0, 10);
  name += "-" + selection_digest.substr(7, 12);
  return name + (r.format == "json" ? ".json" : ".md");
}

Result<ApiResponse> GetReport(ReportService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "",
                               {"project_id", "locale", "include_evidence_checks", "format",
                                "include_archived", "download", "period"},
                               {"project_id"}));
  ReportRequest r;
  PC_ASSIGN_OR_RETURN(r.project_id, BodyString(j, "project_id", ""));
  PC_ASSIGN_OR_RETURN(r.locale, BodyOptString(j, "locale"));
  PC_ASSIGN_OR_RETURN(r.include_evidence_checks, OptBool(j, "include_evidence_checks", true));
  PC_ASSIGN_OR_RETURN(auto format, BodyOptString(j, "format"));
  if (format) r.format = *format;
  PC_ASSIGN_OR_RETURN(r.include_archived, OptBool(j, "include_archived", false));
  PC_ASSIGN_OR_RETURN(bool download, OptBool(j, "download", false));
  if (j.contains("period") && !j["period"].is_null()) {
    const Json& p = j["period"];
    PC_RETURN_IF_ERROR(BodyShape(
        p, "period", {"start", "end", "timezone", "compare_to_previous_period"}, {"start", "end"}));
    ReportPeriod period;
    PC_ASSIGN_OR_RETURN(auto start, OptTime(p, "start", "period", Code::kInvalidReportPeriod));
    PC_ASSIGN_OR_RETURN(auto end, OptTime(p, "end", "period", Code::kInvalidReportPeriod));
    if (!start || !end)
      return Status(Code::kInvalidReportPeriod, "period.start and period.end are required")
          .WithDetail("field", "period");
    period.start_ms = *start;
    period.end_ms = *end;
    PC_ASSIGN_OR_RETURN(period.timezone, BodyOptString(p, "timezone"));
    PC_ASSIGN_OR_RETURN(period.compare_to_previous_period,
                        OptBool(p, "compare_to_previous_period", false));
    r.period = period;
  }
  PC_ASSIGN_OR_RETURN(HandoffReport report, svc.Build(r));
  PC_ASSIGN_OR_RETURN(RenderedReport out, RenderReport(report));
  ApiResponse res;
  res.headers = {{"Cache-Control", "no-store"},
                 {"X-PowerContext-Selection-Digest", out.selection_digest},
                 {"X-PowerContext-Report-Digest", out.report_digest}};
  if (download)
    res.headers.push_back(
        {"Content-Disposition",
         "attachment; filename=\"" + ReportFileName(report, out.selection_digest) + "\""});
  if (report.format == "markdown") {
    res.text = std::move(out.markdown);
    res.content_type = "text/markdown; charset=utf-8";
    return res;
  }
  res.body = Json{{"format", "json"},
                  {"report", std::move(out.report)},
                  {"markdown", nullptr},
                  {"selection_digest", out.selection_digest},
                  {"report_digest", out.report_digest}};
  return res;
}

}  // namespace

void AddReportRoutes(Router& router, Services services) {
  ReportServices* rs = services.report;
  auto bind = [rs](auto member, auto fn) -> ApiHandler {
    return [rs, member, fn](const ApiRequest& req) -> Result<ApiResponse> {
      if (!rs) return Status(Code::kCapabilityUnavailable, "Handoff Reports are not served");
      return fn(rs->*member, req);
    };
  };
  auto catalog = [&](Result<ApiResponse> (*fn)(CatalogService&, const ApiRequest&)) {
    return bind(&ReportServices::catalog, fn);
  };
  router.Add("POST", "/v1/handoff-reports/projects/create",
             {"create_handoff_report_project", Permission::kWrite, ScopeIn::kAll},
             catalog(CreateProject));
  router.Add("POST", "/v1/handoff-reports/projects/list",
             {"list_handoff_report_projects", Permission::kRead, ScopeIn::kAll},
             catalog(ListProjects));
  router.Add("POST", "/v1/handoff-reports/projects/get",
             {"get_handoff_report_project", Permission::kRead, ScopeIn::kAll}, catalog(GetProject));
  router.Add("POST", "/v1/handoff-reports/projects/update",
             {"update_handoff_report_project", Permission::kWrite, ScopeIn::kAll},
             catalog(UpdateProject));
  router.Add(
      "POST", "/v1/handoff-reports/workstreams/register",
      {"register_handoff_report_workstream", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
      catalog(RegisterWorkstream));
  router.Add("POST", "/v1/handoff-reports/workstreams/list",
             {"list_handoff_report_workstreams", Permission::kRead, ScopeIn::kAll},
             catalog(ListWorkstreams));
  router.Add(
      "POST", "/v1/handoff-reports/workstreams/update",
      {"update_handoff_report_workstream", Permission::kWrite, ScopeIn::kAll, BodySize::kLarge},
      catalog(UpdateWorkstream));
  Result<ApiResponse> (*workspace[])(WorkspaceService&, const ApiRequest&) = {
      GetWorkspace, AttachWorkspace, DetachWorkspace};
  router.Add("POST", "/v1/handoff-reports/workspace-bindings/get",
             {"get_handoff_report_workspace", Permission::kRead, ScopeIn::kAll},
             bind(&ReportServices::workspaces, workspace[0]));
  router.Add("POST", "/v1/handoff-reports/workspace-bindings/attach",
             {"attach_handoff_report_workspace", Permission::kWrite, ScopeIn::kAll},
             bind(&ReportServices::workspaces, workspace[1]));
  router.Add("POST", "/v1/handoff-reports/workspace-bindings/detach",
             {"detach_handoff_report_workspace", Permission::kWrite, ScopeIn::kAll},
             bind(&ReportServices::workspaces, workspace[2]));
  Result<ApiResponse> (*activity[])(ActivityService&, const ApiRequest&) = {
      RecordActivity, ListActivities, PurgeActivities};
  // An event may carry 32 references of 2,048-character URLs and a 2,000-character summary.
  router.Add(
      "POST", "/v1/handoff-reports/activities/record",
      {"record_handoff_report_activity", Permission::kWrite, ScopeIn::kAll, BodySize::kLarge},
      bind(&ReportServices::activities, activity[0]));
  router.Add("POST", "/v1/handoff-reports/activities/list",
             {"list_handoff_report_activities", Permission::kRead, ScopeIn::kAll},
             bind(&ReportServices::activities, activity[1]));
  router.Add("POST", "/v1/handoff-reports/activities/purge",
             {"purge_handoff_report_activities", Permission::kWrite, ScopeIn::kAll},
             bind(&ReportServices::activities, activity[2]));
  Result<ApiResponse> (*report)(ReportService&, const ApiRequest&) = GetReport;
  router.Add("POST", "/v1/handoff-reports/get",
             {"get_handoff_report", Permission::kRead, ScopeIn::kAll},
             bind(&ReportServices::reports, report));
}

}  // namespace pc
