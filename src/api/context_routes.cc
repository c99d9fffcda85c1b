// POST /v1/context/prepare: the spec's PreparedContext (RFC 0028), and our explanation of it on
// request. Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/router.h"

namespace pc {
namespace {

// PreparedContext, exactly; with `explain` (ours), also the items picked, the memory revision
// they cite and the search mode used. `mode`, `include_handoff` and `min_revision` are ours too.
Result<ApiResponse> Prepare(ContextService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, Body::Parse(req.body, {"scope_id", "query", "max_bytes", "mode",
                                                        "include_handoff", "explain",
                                                        "min_revision"}));
  PrepareRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(r.min_revision, body.OptInt("min_revision"));
  PC_ASSIGN_OR_RETURN(r.query, body.String("query"));
  PC_ASSIGN_OR_RETURN(auto max_bytes, body.OptInt("max_bytes"));
  r.max_bytes = max_bytes.value_or(static_cast<int64_t>(kDefaultContextBytes));
  PC_ASSIGN_OR_RETURN(auto mode, body.OptString("mode"));
  if (mode) {
    PC_ASSIGN_OR_RETURN(r.mode, ParseSearchMode(*mode));
  }
  PC_ASSIGN_OR_RETURN(auto include_handoff, body.OptBool("include_handoff"));
  r.include_handoff = include_handoff.value_or(true);
  PC_ASSIGN_OR_RETURN(auto explain, body.OptBool("explain"));
  PC_ASSIGN_OR_RETURN(PreparedContext out, svc.Prepare(r));
  Json j{{"schema", kPreparedContextSchema},
         {"status", out.ready ? "ready" : "empty"},
         {"content", out.ready ? Json(out.content) : Json()},
         {"content_bytes", out.ready ? out.content.size() : 0}};
  if (!explain.value_or(false)) return ApiResponse{200, j};
  Json items = Json::array();
  for (const ContextItem& i : out.items) {
    Json item{{"type", ContextItemTypeName(i.type)}, {"ref", i.ref}, {"bytes", i.bytes}, {"cut", i.cut}};
    item["score"] = i.type == ContextItemType::kHandoff ? Json() : Json(i.score);
    items.push_back(std::move(item));
  }
  j["items"] = items;
  j["memory"] = MemoryRefOrNull(out.memory);
  j["mode_used"] = out.memory.artifact_id.empty() ? Json() : Json(SearchModeName(out.mode_used));
  return ApiResponse{200, j};
}

}  // namespace

void AddContextRoutes(Router& router, Services services) {
  router.Add("POST", "/v1/context/prepare", {"prepare_context", Permission::kRead, ScopeIn::kBody}, Bind(services.context, Prepare));
}

}  // namespace pc
