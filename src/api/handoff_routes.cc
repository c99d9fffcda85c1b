// The handoff routes (DESIGN §6, RFC 0048, docs/handoff.md): the spec's five operations, exactly
// their schemas both ways (unknown fields are refused at every level), and our two read routes.
// Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/handoff_codec.h"
#include "api/router.h"
#include "auth/request_context.h"
#include "common/clock.h"
#include "common/json_parse.h"
#include "model/citation.h"

namespace pc {
namespace {

// Ours (GET /v1/handoff and its history): a committed revision.
Json HandoffJson(const Handoff& h) {
  return Json{{"reference", ToJson(h.ref)},
              {"ref", FormatMemoryRef(h.ref)},
              {"content", ContentJson(h.content, true)},
              {"text", HandoffText(h)},
              {"actor", h.actor},
              {"created_at", FormatTimestamp(h.created_at_ms)}};
}

Result<Json> Parsed(const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  return j;
}

Result<int64_t> MaxBytes(const Body& body) {
  PC_ASSIGN_OR_RETURN(std::optional<int64_t> v, body.OptInt("max_bytes"));
  return v.value_or(kDefaultHandoffBytes);
}

Result<ApiResponse> Prepare(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body,
                      ParseBody(req, {"scope_id", "objective", "evidence", "max_bytes"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  PrepareHandoffRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(r.objective, body.String("objective"));
  if (!j.contains("evidence")) return JsonFieldError("evidence", "evidence is required");
  PC_ASSIGN_OR_RETURN(r.evidence, CitationsFrom(j["evidence"], "evidence"));
  PC_ASSIGN_OR_RETURN(r.max_bytes, MaxBytes(body));
  PC_ASSIGN_OR_RETURN(HandoffContent draft, svc.Prepare(r));
  return ApiResponse{200, ContentJson(draft, false)};
}

Result<ApiResponse> Activate(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "boundary_source", "objective",
                                                 "evidence", "max_bytes"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  ActivateHandoffRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  if (!j.contains("boundary_source"))
    return JsonFieldError("boundary_source", "boundary_source is required");
  PC_RETURN_IF_ERROR(JsonShape(j["boundary_source"], "boundary_source", {"name", "source_id"},
                               {"name", "source_id"}));
  PC_ASSIGN_OR_RETURN(r.boundary_name, JsonString(j["boundary_source"], "name", "boundary_source"));
  PC_ASSIGN_OR_RETURN(r.boundary_source_id,
                      JsonString(j["boundary_source"], "source_id", "boundary_source"));
  PC_ASSIGN_OR_RETURN(r.objective, body.String("objective"));
  if (j.contains("evidence")) {
    PC_ASSIGN_OR_RETURN(r.evidence, CitationsFrom(j["evidence"], "evidence"));
  }
  PC_ASSIGN_OR_RETURN(r.max_bytes, MaxBytes(body));
  PC_ASSIGN_OR_RETURN(HandoffActivation a, svc.Activate(r));
  return ApiResponse{200, Json{{"status", a.generated ? "generated" : "ignored"},
                               {"boundary_source",
                                {{"name", r.boundary_name}, {"source_id", r.boundary_source_id}}},
                               {"previous_position", a.previous_position},
                               {"current_position", a.current_position},
                               {"draft", a.draft ? ContentJson(*a.draft, false) : Json()}}};
}

Result<ApiResponse> Finalize(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "draft"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  if (!j.contains("draft")) return JsonFieldError("draft", "draft is required");
  PC_ASSIGN_OR_RETURN(HandoffContent draft, ContentFrom(j["draft"], "draft", false));
  PC_ASSIGN_OR_RETURN(PreparedHandoff p, svc.Finalize(scope_id, draft));
  return ApiResponse{200, PreparedJson(p)};
}

Result<ApiResponse> Commit(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "handoff"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  if (!j.contains("handoff")) return JsonFieldError("handoff", "handoff is required");
  PC_ASSIGN_OR_RETURN(PreparedHandoff p, PreparedFrom(j["handoff"], "handoff"));
  const Principal& who = CurrentPrincipal();  // the token's name with auth on
  PC_ASSIGN_OR_RETURN(CommittedHandoff c,
                      svc.Commit(scope_id, p, who.authenticated ? who.name : "api"));
  Json sources = Json::array(), artifacts = Json::array();
  for (const HandoffCitation& s : c.sources)
    sources.push_back({{"name", s.source_name}, {"source_id", s.source_id}});
  for (const MemoryRef& a : c.artifacts) artifacts.push_back(ToJson(a));
  return ApiResponse{200, Json{{"reference", ToJson(c.handoff.ref)},
                               {"content", ContentJson(c.handoff.content, true)},
                               {"source_refs", sources},
                               {"artifact_refs", artifacts}}};
}

Result<ApiResponse> Continue(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "selection", "prepared", "revision"}));
  PC_ASSIGN_OR_RETURN(Json j, Parsed(req));
  ContinueHandoffRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(std::string selection, body.String("selection"));
  if (selection == "prepared")
    r.selection = HandoffSelection::kPrepared;
  else if (selection == "exact")
    r.selection = HandoffSelection::kExact;
  else if (selection == "latest")
    r.selection = HandoffSelection::kLatest;
  else
    return JsonFieldError("selection", "selection must be prepared, exact or latest");
  if (j.contains("prepared") && !j["prepared"].is_null()) {
    PC_ASSIGN_OR_RETURN(PreparedHandoff p, PreparedFrom(j["prepared"], "prepared"));
    r.prepared = std::move(p);
  }
  if (j.contains("revision") && !j["revision"].is_null()) {
    PC_ASSIGN_OR_RETURN(MemoryRef rev, RefFromJson(j["revision"], "revision"));
    r.revision = std::move(rev);
  }
  PC_ASSIGN_OR_RETURN(HandoffResolution res, svc.Continue(r));
  return ApiResponse{200, ResolutionJson(res)};
}

Result<ApiResponse> ReadHandoff(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "revision"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(auto revision, q.OptInt("revision"));
  PC_ASSIGN_OR_RETURN(Handoff h, svc.Get(scope_id, revision));
  return ApiResponse{200, HandoffJson(h)};
}

Result<ApiResponse> HandoffHistory(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "limit", "cursor"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(PageRequest page, q.Page());
  PC_ASSIGN_OR_RETURN(HandoffPage out, svc.History(scope_id, page));
  Json items = Json::array();
  for (const Handoff& h : out.items) items.push_back(HandoffJson(h));
  return ApiResponse{200, Json{{"handoffs", items}, {"next_cursor", NextCursor(out.next_cursor)}}};
}

}  // namespace

void AddHandoffRoutes(Router& router, Services services) {
  HandoffService& h = services.handoff;
  router.Add("POST", "/v1/handoff/activate",
             {"activate_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Activate));
  router.Add("POST", "/v1/handoff/prepare",
             {"prepare_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Prepare));
  router.Add("POST", "/v1/handoff/finalize",
             {"finalize_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Finalize));
  router.Add("POST", "/v1/handoff/commit",
             {"commit_handoff", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Commit));
  router.Add("POST", "/v1/handoff/continue",
             {"continue_handoff", Permission::kRead, ScopeIn::kBody, BodySize::kLarge},
             Bind(h, Continue));
  router.Add("GET", "/v1/handoff", {"get_handoff", Permission::kRead, ScopeIn::kQuery},
             Bind(h, ReadHandoff));
  router.Add("GET", "/v1/handoff/history",
             {"list_handoff_history", Permission::kRead, ScopeIn::kQuery}, Bind(h, HandoffHistory));
}

}  // namespace pc
