// The MCP tools: each a name, a description written for a model, a JSON Schema for its input,
// and a call that becomes one or two requests to the HTTP API's routes (in process, or to a
// running server). Domain failures come back as tool errors carrying our error code.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/json_codec.h"
#include "common/status.h"

namespace pc {

// One request to the /v1 API: the route's JSON answer, or its error as a Status (code, message,
// details).
using CallRoute = std::function<Result<Json>(const std::string& method, const std::string& path,
                                             const std::map<std::string, std::string>& query,
                                             const Json& body)>;

struct ToolResult {
  Json structured;  // the route's answer, or {"error": {code, message, details}}
  bool is_error = false;
};

class McpTools {
 public:
  explicit McpTools(CallRoute call) : call_(std::move(call)) {}
  // tools/list: [{name, title, description, inputSchema}]
  static Json List();
  // tools/call. An unknown tool is InvalidArgument (a protocol error); everything else,
  // including bad arguments, is a ToolResult.
  Result<ToolResult> Call(const std::string& name, const Json& arguments);

 private:
  Result<std::string> ResolveScope(const Json& arguments);
  CallRoute call_;
};

}  // namespace pc
