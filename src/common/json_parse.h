// The one way this process reads JSON: requests, MCP messages, model answers, files. nlohmann's
// DOM is recursive (copy, dump, destruction), so nesting is bounded where the text is parsed, never
// later; duplicate keys are refused (with "last wins", {"scope_id":"A","scope_id":"B"} would write
// to B while a log or a proxy read A); numbers outside double's range are an error, not infinity.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "common/status.h"

namespace pc {

// Deeper than any request, answer or setting this server reads; far below what overflows a stack.
inline constexpr int kMaxJsonDepth = 64;

// Parses `text` as one JSON value. InvalidArgument (with a message that says where) when it is not
// JSON, not UTF-8, nested deeper than `max_depth`, repeats a key in an object, or has a number out
// of range. Never throws.
Result<nlohmann::json> ParseJson(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace pc
