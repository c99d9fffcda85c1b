// Errors on the wire, both ways: {"error": {"code", "message", "details"}} from a Status (the
// server, MCP tool results), and a Status from an HTTP error answer (the clients).
#pragma once

#include "common/status.h"
#include "wire/json.h"

namespace pc {

Json ErrorJson(const Status& s);
// The Status an error answer stands for: the code of its HTTP status, its message and details.
// Never throws, whatever the body holds.
Status ErrorFromJson(int http_status, const Json& body);

}  // namespace pc
