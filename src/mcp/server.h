// The Model Context Protocol server side, transport-independent: one JSON-RPC 2.0 message in,
// the response out. initialize (with version negotiation), ping, tools/list, tools/call;
// notifications are accepted silently. Transports: mcp/stdio.h, and POST /mcp in serve.
#pragma once

#include <string>

#include "mcp/tools.h"

namespace pc {

// Protocol revisions this server speaks, newest first.
inline constexpr const char* kMcpProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

class McpServer {
 public:
  explicit McpServer(McpTools& tools) : tools_(tools) {}
  // The response to send, or "" when there is none (a notification). Thread-safe.
  std::string Handle(const std::string& message);

 private:
  Json HandleOne(const Json& request);
  McpTools& tools_;
};

}  // namespace pc
