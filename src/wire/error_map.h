// The one table from domain codes to HTTP status and CLI exit codes (DESIGN §8).
#pragma once

#include <cstdint>
#include <optional>

#include "common/status.h"

namespace pc {

int HttpStatusFor(Code code);
Code CodeForHttpStatus(int http_status);
// Exit codes: 0 ok, 1 internal, 2 invalid argument / usage, 3 not found, 4 conflict, 5 too large,
// 6 capability unavailable, 7 server or provider unreachable, 8 other client errors.
int ExitCodeFor(Code code);
// The seconds an error's retry_after_seconds detail asks the caller to wait (at least 1), the
// HTTP answer's Retry-After; nullopt when it has none.
std::optional<int64_t> RetryAfterSeconds(const Status& s);

}  // namespace pc
