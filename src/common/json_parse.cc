#include "common/json_parse.h"

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
    // The parser's messages quote the bytes it read last, which need not be UTF-8; a message is
    // text (MCP's reply carrying it used to fail to serialize: -32603 instead of -32700).
    return InvalidArgument("malformed JSON: " + EscapeInvalidUtf8(what));
  } catch (const Json::exception& e) {  // out_of_range: a number such as 1e400
    return InvalidArgument("malformed JSON: " + EscapeInvalidUtf8(e.what()));
  } catch (const std::exception& e) {  // std::bad_alloc
    return InvalidArgument(std::string("JSON could not be read: ") + e.what());
  }
}

}  // namespace pc
