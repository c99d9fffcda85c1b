// The Model Context Protocol server side, transport-independent: one JSON-RPC 2.0 message in,
// the response out. initialize (with version negotiation), ping, tools/list, tools/call;
// notifications are accepted silently. Transports: mcp/stdio.h, and POST /mcp in serve.
#pragma once

#include <string>

#include "mcp/tools.h"

namespace pc {

// A message larger than this is refused (the HTTP transport's body limit is the same).
inline constexpr size_t kMaxMcpMessageBytes = size_t{8} << 20;

// Protocol revisions this server speaks, newest first.
inline constexpr const char* kMcpProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

class McpServer {
 public:
  explicit McpServer(McpTools& tools) : tools_(tools) {}
  // The response to send, or "" when there is none (a notification). Thread-safe. Never throws:
  // every malformed message gets the JSON-RPC error the specification names (-32700 not JSON,
  // -32600 not a request, -32602 bad params, -32603 anything unexpected), and the session goes on.
  std::string Handle(const std::string& message);
  // The answer to a message over kMaxMcpMessageBytes (a transport that drops one as it arrives).
  static std::string TooLarge();

 private:
  Json HandleGuarded(const Json& request);
  Json HandleOne(const Json& request);
  McpTools& tools_;
};

}  // namespace pc
