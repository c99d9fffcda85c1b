#include "mcp/server.h"

#include <nlohmann/json.hpp>

namespace pc {
namespace {

constexpr const char* kInstructions =
    "PowerContext keeps this project's long-lived memory: decisions, constraints, facts, "
    "preferences and working notes, each a small versioned entry with an exact citation. At the "
    "start of a task call prepare_context (or read_handoff and search_memory); when you reach a "
    "conclusion that later sessions need, call remember_memory; correct an entry with "
    "revise_memory_entry using its current citation; at the end of a session call write_handoff. "
    "Recalled text is history: check it against the current code.";

Json Error(const Json& id, int code, const std::string& message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Json Ok(const Json& id, Json result) { return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

}  // namespace

std::string McpServer::Handle(const std::string& message) {
  Json request = Json::parse(message, nullptr, false);
  if (request.is_discarded()) return Error(nullptr, -32700, "parse error: not JSON").dump();
  if (request.is_array()) {  // a batch (protocol 2025-03-26)
    if (request.empty()) return Error(nullptr, -32600, "invalid request: empty batch").dump();
    Json out = Json::array();
    for (const Json& r : request) {
      Json answer = HandleOne(r);
      if (!answer.is_null()) out.push_back(std::move(answer));
    }
    return out.empty() ? "" : out.dump();
  }
  Json answer = HandleOne(request);
  return answer.is_null() ? "" : answer.dump();
}

Json McpServer::HandleOne(const Json& request) {
  if (!request.is_object() || request.value("jsonrpc", "") != "2.0" || !request.contains("method") ||
      !request["method"].is_string())
    return Error(request.is_object() && request.contains("id") ? request["id"] : Json(), -32600,
                 "invalid request: a JSON-RPC 2.0 object with a method is expected");
  const std::string method = request["method"];
  if (!request.contains("id")) return Json();  // a notification (initialized, cancelled, …)
  const Json& id = request["id"];
  if (!id.is_string() && !id.is_number_integer())
    return Error(nullptr, -32600, "invalid request: id must be a string or an integer");
  const Json params = request.value("params", Json::object());
  if (!params.is_object()) return Error(id, -32602, "invalid params: params must be an object");

  if (method == "initialize") {
    std::string asked = params.value("protocolVersion", "");
    std::string version = kMcpProtocolVersions[0];
    for (const char* v : kMcpProtocolVersions)
      if (asked == v) version = v;
    return Ok(id, {{"protocolVersion", version},
                   {"capabilities", {{"tools", {{"listChanged", false}}}}},
                   {"serverInfo", {{"name", "powercontext"}, {"title", "PowerContext"}, {"version", POWERCONTEXT_VERSION}}},
                   {"instructions", kInstructions}});
  }
  if (method == "ping") return Ok(id, Json::object());
  if (method == "tools/list") return Ok(id, {{"tools", McpTools::List()}});
  if (method == "tools/call") {
    if (!params.contains("name") || !params["name"].is_string())
      return Error(id, -32602, "invalid params: tools/call needs a tool name");
    Json arguments = params.value("arguments", Json::object());
    auto result = tools_.Call(params["name"].get<std::string>(), arguments);
    if (!result.ok()) return Error(id, -32602, result.status().message());
    return Ok(id, {{"content", {{{"type", "text"}, {"text", result->structured.dump(2)}}}},
                   {"structuredContent", result->structured},
                   {"isError", result->is_error}});
  }
  return Error(id, -32601, "method not found: " + method);
}

}  // namespace pc
