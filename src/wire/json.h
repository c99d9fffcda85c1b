// The JSON type of the wire (nlohmann), for the edges that speak it: api, client, cli, mcp.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace pc {

using Json = nlohmann::json;

}  // namespace pc
