// The one way this process reads JSON: requests, MCP messages, model answers, files. nlohmann's
// DOM is recursive (copy, dump, destruction), so nesting is bounded where the text is parsed, never
// later; duplicate keys are refused (with "last wins", {"scope_id":"A","scope_id":"B"} would write
// to B while a log or a proxy read A); numbers outside double's range are an error, not infinity.
// The parse is one linear pass (a SAX handler that builds the value itself): nlohmann's
// callback-based parse, used before, grew with the square of an array's length.
#pragma once

#include <cstddef>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pc {

// Deeper than any request, answer or setting this server reads; far below what overflows a stack.
inline constexpr int kMaxJsonDepth = 64;

// What one parse may build. A value (number, string, array, object, each element and member) costs
// a fixed ~16–80 bytes in memory however short its text: `[0,0,0…]` is 2 bytes a value in and 16+
// in memory, so a cap on values is what keeps a parse's memory a small multiple of its text.
struct JsonLimits {
  int max_depth = kMaxJsonDepth;
  size_t max_values = std::numeric_limits<size_t>::max();
};

// Parses `text` as one JSON value. InvalidArgument (with a message that says where) when it is not
// JSON, not UTF-8, nested deeper than `max_depth`, repeats a key in an object, or has a number out
// of range; TooLarge when it holds more than `max_values` values. Never throws.
Result<nlohmann::json> ParseJson(std::string_view text, const JsonLimits& limits);
Result<nlohmann::json> ParseJson(std::string_view text, int max_depth = kMaxJsonDepth);

// The number of elements of a top-level JSON array in `text` (1 for any other value, 0 when it is
// not JSON), without building it: a linear scan with no allocation per value.
size_t CountTopLevelElements(std::string_view text);

}  // namespace pc
