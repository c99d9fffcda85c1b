// POST /v1/context/prepare: the spec's PreparedContext (RFC 0028), and our explanation of it on
// request; POST /v1/context/prune: pruning a message list (session/prune.h). Decode, call, encode.
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "common/clock.h"
#include "session/prune.h"

namespace pc {
namespace {

// PreparedContext, exactly; with `explain` (ours), also the items picked, the memory revision
// they cite and the search mode used. `mode`, `include_handoff`, `min_revision` and `rerank` are
// ours too.
Result<ApiResponse> Prepare(ContextService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body,
                      ParseBody(req, {"scope_id", "query", "max_bytes", "mode", "include_handoff",
                                      "explain", "min_revision", "rerank"}));
  PrepareRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, body.String("scope_id"));
  r.scope = req.ParsedScope();
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
  PC_ASSIGN_OR_RETURN(auto rerank, body.OptBool("rerank"));
  r.rerank = rerank.value_or(false);
  PC_ASSIGN_OR_RETURN(auto explain, body.OptBool("explain"));
  PC_ASSIGN_OR_RETURN(PreparedContext out, svc.Prepare(r));
  Json j{{"schema", kPreparedContextSchema},
         {"status", out.ready ? "ready" : "empty"},
         {"content", out.ready ? Json(out.content) : Json()},
         {"content_bytes", out.ready ? out.content.size() : 0}};
  if (!explain.value_or(false)) return ApiResponse{200, j};
  Json items = Json::array();
  for (const ContextItem& i : out.items) {
    Json item{
        {"type", ContextItemTypeName(i.type)}, {"ref", i.ref}, {"bytes", i.bytes}, {"cut", i.cut}};
    item["score"] = i.type == ContextItemType::kHandoff ? Json() : Json(i.score);
    items.push_back(std::move(item));
  }
  j["items"] = items;
  j["memory"] = MemoryRefOrNull(out.memory);
  j["mode_used"] = out.memory.artifact_id.empty() ? Json() : Json(SearchModeName(out.mode_used));
  return ApiResponse{200, j};
}

// Ours (seed 002): the cache-ttl pruning of a message list, a pure function of the request (and
// the server's clock when it gives no `now`). No scope, no store.
Result<ApiResponse> Prune(const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(
      Body body, ParseBody(req, {"messages", "ttl", "min_prunable_tool_chars", "hard_clear_ratio",
                                 "keep_recent_turns", "context_window_tokens", "now"}));
  PC_ASSIGN_OR_RETURN(Json messages, body.Array("messages"));
  if (messages.size() > kMaxPruneMessages)
    return Status(Code::kTooLarge,
                  "messages has more than " + std::to_string(kMaxPruneMessages) + " items")
        .WithDetail("field", "messages");
  PrunePolicy policy;
  PC_ASSIGN_OR_RETURN(auto ttl, body.OptNumber("ttl"));
  PC_ASSIGN_OR_RETURN(auto min_chars, body.OptInt("min_prunable_tool_chars"));
  PC_ASSIGN_OR_RETURN(auto ratio, body.OptNumber("hard_clear_ratio"));
  PC_ASSIGN_OR_RETURN(auto keep, body.OptInt("keep_recent_turns"));
  PC_ASSIGN_OR_RETURN(auto window, body.OptInt("context_window_tokens"));
  PC_ASSIGN_OR_RETURN(auto now, body.OptString("now"));
  policy.ttl_seconds = ttl.value_or(policy.ttl_seconds);
  policy.min_prunable_tool_chars = min_chars.value_or(policy.min_prunable_tool_chars);
  policy.hard_clear_ratio = ratio.value_or(policy.hard_clear_ratio);
  policy.keep_recent_turns = keep.value_or(policy.keep_recent_turns);
  policy.context_window_tokens = window.value_or(policy.context_window_tokens);
  if (now) {
    policy.now_ms = ParseRfc3339(*now);
    if (!policy.now_ms) return FieldError("now", "now must be an RFC 3339 time");
  }
  PC_ASSIGN_OR_RETURN(PruneResult out, PruneMessages(messages, policy, NowMillis()));
  return ApiResponse{200, PruneResultJson(out, std::move(messages))};
}

}  // namespace

void AddContextRoutes(Router& router, Services services) {
  router.Add("POST", "/v1/context/prepare", {"prepare_context", Permission::kRead, ScopeIn::kBody},
             Bind(services.context, Prepare));
  router.Add("POST", "/v1/context/prune",
             {"prune_context", Permission::kRead, ScopeIn::kNone, BodySize::kBatch}, Prune);
}

}  // namespace pc
