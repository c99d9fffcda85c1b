// mcp/server.h: McpServer::Handle on any message, with the twelve tools calling the /v1 routes
// in process over a real store (fuzz_world.h; the scope key "project:fuzz" exists, and the
// placeholders $SCOPE, $CITE, $OLDCITE are replaced first).
//
// Checked: never throws or crashes; the reply is "" (notifications only) or JSON-RPC 2.0 JSON;
// a message that is not JSON is -32700; nothing is -32603 (the code for the unexpected: an
// exception inside the server).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_world.h"
#include "mcp/server.h"
#include "mcp/transports.h"

namespace {

void CheckReply(const pc::Json& r, const std::string& where) {
  FUZZ_CHECK(r.is_object() && r.contains("jsonrpc") && r["jsonrpc"] == "2.0", where);
  FUZZ_CHECK(r.contains("result") != r.contains("error"), where);
  if (r.contains("error")) {
    FUZZ_CHECK(r["error"].is_object() && r["error"]["code"].is_number_integer() &&
                   r["error"]["message"].is_string(),
               where);
    FUZZ_CHECK(r["error"]["code"] != -32603, "internal error: " + where);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  static fuzz::World& world = fuzz::World::Get();
  static McpTools tools{InProcessRoutes(world.router())};
  static McpServer server{tools};

  const std::string message =
      world.Substitute(std::string(reinterpret_cast<const char*>(data), size));
  const std::string reply = server.Handle(message);
  const std::string where = fuzz::Printable(message) + "\n  replied " + fuzz::Printable(reply, 600);
  if (reply.empty()) return 0;
  Result<Json> parsed = ParseJson(reply);
  FUZZ_CHECK(parsed.ok(), "the reply is not JSON: " + where);
  if (!ParseJson(message).ok()) {
    FUZZ_CHECK(parsed->is_object() && (*parsed)["error"]["code"] == -32700, where);
    return 0;
  }
  if (parsed->is_array()) {
    FUZZ_CHECK(!parsed->empty(), where);
    for (const Json& r : *parsed) CheckReply(r, where);
  } else {
    CheckReply(*parsed, where);
  }
  return 0;
}
