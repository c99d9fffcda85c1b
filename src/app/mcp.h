// `powercontext mcp`: MCP over stdio, on a data directory in this process (--data, the default)
// or in front of a running server (--server URL).
#pragma once

#include <string>

#include "app/config.h"

namespace pc {

// `server_url` empty: open the data directory here. Runs until standard input closes.
int RunMcp(const Config& config, const std::string& server_url);

}  // namespace pc
