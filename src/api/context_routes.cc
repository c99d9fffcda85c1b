// POST /v1/context/prepare, and the handoff: POST /v1/handoff, GET /v1/handoff,
// GET /v1/handoff/history. Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/router.h"

namespace pc {
namespace {

Result<ApiResponse> Prepare(ContextService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, Body::Parse(req.body, {"scope_id", "query", "max_bytes", "mode",
                                                        "include_handoff"}));
  PrepareRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(r.query, body.String("query"));
  PC_ASSIGN_OR_RETURN(auto max_bytes, body.OptInt("max_bytes"));
  if (!max_bytes) return InvalidArgument("max_bytes is required").WithDetail("field", "max_bytes");
  r.max_bytes = *max_bytes;
  PC_ASSIGN_OR_RETURN(auto mode, body.OptString("mode"));
  if (mode) {
    PC_ASSIGN_OR_RETURN(r.mode, ParseSearchMode(*mode));
  }
  PC_ASSIGN_OR_RETURN(auto include_handoff, body.OptBool("include_handoff"));
  r.include_handoff = include_handoff.value_or(true);
  PC_ASSIGN_OR_RETURN(PreparedContext out, svc.Prepare(r));
  Json items = Json::array();
  for (const ContextItem& i : out.items) {
    Json j{{"type", ContextItemTypeName(i.type)}, {"bytes", i.bytes}, {"cut", i.cut}};
    const char* key = i.type == ContextItemType::kMemory ? "citation"
                      : i.type == ContextItemType::kExperience ? "source_ref" : "handoff_ref";
    j[key] = i.ref;
    j["score"] = i.type == ContextItemType::kHandoff ? Json() : Json(i.score);
    items.push_back(std::move(j));
  }
  return ApiResponse{200, Json{{"status", out.ready ? "ready" : "empty"},
                               {"content", out.ready ? Json(out.content) : Json()},
                               {"content_bytes", out.content.size()},
                               {"items", items},
                               {"memory", ToJson(out.memory)},
                               {"mode_used", SearchModeName(out.mode_used)},
                               {"trust", "untrusted_history"}}};
}

Result<ApiResponse> WriteHandoff(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, Body::Parse(req.body, {"scope_id", "from", "to", "summary", "state",
                                                        "decisions", "next_steps", "open_questions",
                                                        "expected_revision", "actor"}));
  HandoffRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(r.summary, body.String("summary"));
  PC_ASSIGN_OR_RETURN(auto from, body.OptString("from"));
  PC_ASSIGN_OR_RETURN(auto to, body.OptString("to"));
  PC_ASSIGN_OR_RETURN(auto state, body.OptString("state"));
  PC_ASSIGN_OR_RETURN(auto actor, body.OptString("actor"));
  r.from = from.value_or("");
  r.to = to.value_or("");
  r.state = state.value_or("");
  r.actor = actor.value_or("api");
  PC_ASSIGN_OR_RETURN(r.decisions, body.Strings("decisions"));
  PC_ASSIGN_OR_RETURN(r.next_steps, body.Strings("next_steps"));
  PC_ASSIGN_OR_RETURN(r.open_questions, body.Strings("open_questions"));
  PC_ASSIGN_OR_RETURN(r.expected_revision, body.OptInt("expected_revision"));
  PC_ASSIGN_OR_RETURN(Handoff h, svc.Write(r));
  return ApiResponse{201, ToJson(h)};
}

Result<ApiResponse> ReadHandoff(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "revision"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(auto revision, q.OptInt("revision"));
  PC_ASSIGN_OR_RETURN(Handoff h, svc.Get(scope_id, revision));
  return ApiResponse{200, ToJson(h)};
}

Result<ApiResponse> HandoffHistory(HandoffService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "limit", "cursor"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
  PC_ASSIGN_OR_RETURN(PageRequest page, q.Page());
  PC_ASSIGN_OR_RETURN(HandoffPage out, svc.History(scope_id, page));
  Json items = Json::array();
  for (const Handoff& h : out.items) items.push_back(ToJson(h));
  return ApiResponse{200, Json{{"handoffs", items},
                               {"next_cursor", NextCursor(out.next_cursor)}}};
}

}  // namespace

void AddContextRoutes(Router& router, Services services) {
  ContextService* context = &services.context;
  HandoffService* handoff = &services.handoff;
  router.Add("POST", "/v1/context/prepare", [context](const ApiRequest& r) { return Prepare(*context, r); });
  router.Add("POST", "/v1/handoff", [handoff](const ApiRequest& r) { return WriteHandoff(*handoff, r); });
  router.Add("GET", "/v1/handoff", [handoff](const ApiRequest& r) { return ReadHandoff(*handoff, r); });
  router.Add("GET", "/v1/handoff/history", [handoff](const ApiRequest& r) { return HandoffHistory(*handoff, r); });
}

}  // namespace pc
