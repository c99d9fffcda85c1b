// One request to the /v1 API, wherever the server is: the route's JSON answer, or its error as a
// Status (code, message, details). MCP's tools and the scope resolver are written against this,
// so they work the same in process (mcp/transports.h: InProcessRoutes) and over HTTP.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "common/status.h"
#include "wire/json.h"

namespace pc {

class ApiClient;

using CallRoute =
    std::function<Result<Json>(const std::string& method, const std::string& path,
                               const std::map<std::string, std::string>& query, const Json& body)>;

// Requests to a running server at `server_url`: one connection, one request at a time.
CallRoute RemoteRoutes(const std::string& server_url);
// Requests through an existing client (which must outlive the route). GET sends the query, PUT
// and POST the body.
CallRoute RoutesOf(ApiClient& client);

}  // namespace pc
