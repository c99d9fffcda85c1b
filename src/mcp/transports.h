// Where MCP tool calls go and how MCP messages arrive.
//
// Tool calls become requests to the /v1 routes: in this process (`powercontext mcp --data DIR`
// and `serve`'s /mcp), or to a running server (`powercontext mcp --server URL`).
// Messages arrive over stdio (newline-delimited JSON-RPC) or as streamable HTTP POST /mcp, behind
// the HTTP edge guard of every route (Host, Origin, content type: api/edge_guard.h).
#pragma once

#include <iosfwd>
#include <map>
#include <string>

#include "api/http_server.h"
#include "api/router.h"
#include "client/call_route.h"
#include "mcp/server.h"
#include "mcp/tools.h"

namespace pc {

// Requests to the route table of this process (`mcp --data`, serve's /mcp). Over HTTP:
// client/call_route.h RemoteRoutes.
CallRoute InProcessRoutes(const Router& router);

// Reads messages from `in` until EOF, writes each response as one line to `out`.
void ServeMcpStdio(McpServer& server, std::istream& in, std::ostream& out);

// One streamable-HTTP request to /mcp. `headers` are lower-case names.
RawHttpReply HandleMcpHttp(McpServer& server, const std::string& method,
                           const std::map<std::string, std::string>& headers,
                           const std::string& body);

}  // namespace pc
