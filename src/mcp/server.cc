#include "mcp/server.h"

#include <nlohmann/json.hpp>

#include "common/json_parse.h"

namespace pc {
namespace {

constexpr const char* kInstructions =
    "PowerContext keeps this project's long-lived memory: decisions, constraints, facts, "
    "preferences and working notes, each a small versioned entry with an exact citation. At the "
    "start of a task call prepare_context (or continue_handoff and search_memory); when you reach "
    "a conclusion that later sessions need, call remember_memory; correct an entry with "
    "revise_memory_entry using its current citation; at the end of a session draft a handoff with "
    "prepare_handoff, check it, then finalize_handoff and commit_handoff. Recalled text is "
    "history: check it against the current code.";

Json Error(const Json& id, int code, const std::string& message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Json Ok(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

// The member `name` of an object, or null: never throws, whatever the member's type.
const Json* Find(const Json& object, const char* name) {
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

// Text that is not UTF-8 (a tool answer quoting bytes it was given) is replaced, never thrown on.
std::string Dump(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string McpServer::TooLarge() {
  return Error(nullptr, -32600,
               "invalid request: a message may have at most " +
                   std::to_string(kMaxMcpMessageBytes) + " bytes")
      .dump();
}

std::string McpServer::Handle(const std::string& message) {
  try {
    if (message.size() > kMaxMcpMessageBytes) return TooLarge();
    // At most one JSON value per 8 bytes of the largest message: its memory stays a small multiple
    // of its size (common/json_parse.h).
    Result<Json> parsed = ParseJson(message, JsonLimits{kMaxJsonDepth, kMaxMcpMessageBytes / 8});
    if (!parsed.ok())
      return Error(nullptr, -32700, "parse error: " + parsed.status().message()).dump();
    const Json& request = *parsed;
    if (request.is_array()) {  // a batch (protocol 2025-03-26)
      if (request.empty()) return Error(nullptr, -32600, "invalid request: empty batch").dump();
      Json out = Json::array();
      for (const Json& r : request) {
        Json answer = HandleGuarded(r);
        if (!answer.is_null()) out.push_back(std::move(answer));
      }
      return out.empty() ? "" : Dump(out);
    }
    Json answer = HandleGuarded(request);
    return answer.is_null() ? "" : Dump(answer);
  } catch (const std::exception& e) {  // e.g. bad_alloc: the session goes on
    return Error(nullptr, -32603, std::string("internal error: ") + e.what()).dump();
  }
}

Json McpServer::HandleGuarded(const Json& request) {
  try {
    return HandleOne(request);
  } catch (const std::exception& e) {
    const Json* id = request.is_object() ? Find(request, "id") : nullptr;
    return Error(id && (id->is_string() || id->is_number_integer()) ? *id : Json(), -32603,
                 std::string("internal error: ") + e.what());
  }
}

Json McpServer::HandleOne(const Json& request) {
  if (!request.is_object())
    return Error(nullptr, -32600, "invalid request: a JSON-RPC 2.0 object is expected");
  const Json* id = Find(request, "id");
  if (id && !id->is_string() && !id->is_number_integer())
    return Error(nullptr, -32600, "invalid request: id must be a string or an integer");
  const Json reply_id = id ? *id : Json();
  const Json* jsonrpc = Find(request, "jsonrpc");
  if (!jsonrpc || !jsonrpc->is_string() || *jsonrpc != "2.0")
    return Error(reply_id, -32600, "invalid request: \"jsonrpc\" must be the string \"2.0\"");
  const Json* method_field = Find(request, "method");
  if (!method_field || !method_field->is_string())
    return Error(reply_id, -32600, "invalid request: \"method\" must be a string");
  const std::string method = method_field->get<std::string>();
  if (!id) return Json();  // a notification (initialized, cancelled, …): never answered
  const Json* params_field = Find(request, "params");
  if (params_field && !params_field->is_object() && !params_field->is_null())
    return Error(reply_id, -32602, "invalid params: params must be an object");
  const Json params = params_field && params_field->is_object() ? *params_field : Json::object();

  if (method == "initialize") {
    const Json* asked = Find(params, "protocolVersion");
    if (asked && !asked->is_string())
      return Error(reply_id, -32602, "invalid params: protocolVersion must be a string");
    std::string version = kMcpProtocolVersions[0];
    for (const char* v : kMcpProtocolVersions)
      if (asked && *asked == v) version = v;
    return Ok(
        reply_id,
        {{"protocolVersion", version},
         {"capabilities", {{"tools", {{"listChanged", false}}}}},
         {"serverInfo",
          {{"name", "powercontext"}, {"title", "PowerContext"}, {"version", POWERCONTEXT_VERSION}}},
         {"instructions", kInstructions}});
  }
  if (method == "ping") return Ok(reply_id, Json::object());
  if (method == "tools/list") return Ok(reply_id, {{"tools", McpTools::List()}});
  if (method == "tools/call") {
    const Json* name = Find(params, "name");
    if (!name || !name->is_string())
      return Error(reply_id, -32602, "invalid params: tools/call needs a tool name (a string)");
    const Json* arguments = Find(params, "arguments");
    if (arguments && !arguments->is_object() && !arguments->is_null())
      return Error(reply_id, -32602, "invalid params: arguments must be an object");
    auto result = tools_.Call(name->get<std::string>(),
                              arguments && arguments->is_object() ? *arguments : Json::object());
    if (!result.ok()) return Error(reply_id, -32602, result.status().message());
    return Ok(reply_id, {{"content", {{{"type", "text"}, {"text", Dump(result->structured, 2)}}}},
                         {"structuredContent", result->structured},
                         {"isError", result->is_error}});
  }
  return Error(reply_id, -32601, "method not found: " + method);
}

}  // namespace pc
