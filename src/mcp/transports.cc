#include "mcp/transports.h"

#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "common/json_parse.h"
#include "wire/error_json.h"

namespace pc {

CallRoute InProcessRoutes(const Router& router) {
  return
      [&router](const std::string& method, const std::string& path,
                const std::map<std::string, std::string>& query, const Json& body) -> Result<Json> {
        ApiRequest req{
            method, path, {}, {query.begin(), query.end()}, body.is_null() ? "" : body.dump(), ""};
        ApiResponse res = router.Dispatch(req);
        if (res.status >= 200 && res.status < 300) return res.body;
        return ErrorFromJson(res.status, res.body);
      };
}

void ServeMcpStdio(McpServer& server, std::istream& in, std::ostream& out) {
  // Lines are read with a bound: a line past kMaxMcpMessageBytes is dropped as it arrives and
  // answered with an error, so no message can grow the process without limit.
  std::string line;
  bool too_long = false;
  auto finish = [&] {
    std::string reply;
    if (too_long) {
      reply = McpServer::TooLarge();
    } else if (line.find_first_not_of(" \t\r") != std::string::npos) {
      reply = server.Handle(line);
    }
    if (!reply.empty()) out << reply << "\n" << std::flush;
    line.clear();
    too_long = false;
  };
  std::streambuf* buf = in.rdbuf();
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
    if (c == '\n') {
      finish();
    } else if (line.size() < kMaxMcpMessageBytes) {
      line.push_back(static_cast<char>(c));
    } else {
      too_long = true;
    }
  }
  if (!line.empty() || too_long) finish();
}

RawHttpReply HandleMcpHttp(McpServer& server, const std::string& method,
                           const std::map<std::string, std::string>& headers,
                           const std::string& body) {
  // Host, Origin and content type were checked by the HTTP edge guard (api/edge_guard.h), as for
  // every route.
  // No server-initiated stream (GET), no sessions to end (DELETE): only POST, and the answer is
  // the one JSON error shape of every route.
  if (method != "POST")
    return {405, "application/json",
            ErrorJson(Status(Code::kMethodNotAllowed,
                             method + " is not allowed on /mcp: send JSON-RPC with POST")
                          .WithDetail("allow", "POST"))
                .dump()};
  std::string reply = server.Handle(body);
  if (reply.empty()) return {202, "", ""};  // notifications and responses are accepted
  // A message that is not JSON-RPC at all is a bad request at the HTTP level too.
  Json parsed = ParseJson(reply).value_or(Json());
  if (parsed.is_object() && parsed.contains("error") && parsed["id"].is_null())
    return {400, "application/json", reply};
  return {200, "application/json", reply};
}

}  // namespace pc
