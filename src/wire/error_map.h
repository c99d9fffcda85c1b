// The one table from domain codes to HTTP status and CLI exit codes (DESIGN §8).
#pragma once

#include "common/status.h"

namespace pc {

int HttpStatusFor(Code code);
Code CodeForHttpStatus(int http_status);
// Exit codes: 0 ok, 1 internal, 2 invalid argument / usage, 3 not found, 4 conflict, 5 too large,
// 6 capability unavailable, 7 server or provider unreachable, 8 other client errors.
int ExitCodeFor(Code code);

}  // namespace pc
