// The token file: where `powercontext setup --token` keeps a token for the hooks and `mcp
// --server` a host starts (never in the host's own configuration files, which projects commit).
// $XDG_CONFIG_HOME/powercontext/token, else ~/.config/powercontext/token; mode 0600.
#pragma once

#include <string>

#include "common/status.h"

namespace pc {

std::string TokenFilePath();
// The token in the file, trimmed ("" when there is no file).
std::string ReadTokenFile();
Status WriteTokenFile(const std::string& token);

}  // namespace pc
