// The MCP tools: each a name, a description written for a model, a JSON Schema for its input,
// and a call that becomes one or two requests to the HTTP API's routes (in process, or to a
// running server). Domain failures come back as tool errors carrying our error code.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/call_route.h"
#include "common/status.h"
#include "wire/json.h"

namespace pc {

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
