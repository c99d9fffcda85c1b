#include "common/json_parse.h"

#include <cstdio>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/utf8.h"

namespace pc {
namespace {

// Thrown from the parser's callback to stop at once; caught in ParseJson.
struct Refused {
  std::string message;
};

// The parser's messages quote the bytes it read last ("invalid literal; last read: '\xff'"), which
// need not be UTF-8; a message is text (MCP's reply to it used to fail to serialize, answering
// -32603 instead of -32700), so a byte that does not start a valid character is written as \xFF.
std::string Utf8Message(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n > 0 && i + n <= s.size() && IsValidUtf8(s.substr(i, n))) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", c);
    out += hex;
    ++i;
  }
  return out;
}

}  // namespace

Result<nlohmann::json> ParseJson(std::string_view text, int max_depth) {
  using Json = nlohmann::json;
  std::vector<std::set<std::string>> keys;  // one set per open object, innermost last
  int depth = 0;
  auto check = [&](int, Json::parse_event_t event, Json& parsed) -> bool {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (++depth > max_depth)
          throw Refused{"JSON is nested more than " + std::to_string(max_depth) + " levels deep"};
        if (event == Json::parse_event_t::object_start) keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        keys.pop_back();
        --depth;
        break;
      case Json::parse_event_t::array_end:
        --depth;
        break;
      case Json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
          throw Refused{"duplicate key \"" + parsed.get<std::string>() + "\" in a JSON object"};
        break;
      case Json::parse_event_t::value:
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const Refused& r) {
    return InvalidArgument(r.message);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    if (what.find("UTF-8") != std::string::npos || what.find("utf-8") != std::string::npos)
      return InvalidArgument("not valid UTF-8");
    return InvalidArgument("malformed JSON: " + Utf8Message(what));
  } catch (const Json::exception& e) {  // out_of_range: a number such as 1e400
    return InvalidArgument("malformed JSON: " + Utf8Message(e.what()));
  } catch (const std::exception& e) {  // std::bad_alloc
    return InvalidArgument(std::string("JSON could not be read: ") + e.what());
  }
}

}  // namespace pc
