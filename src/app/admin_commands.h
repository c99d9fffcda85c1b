// Administration from the command line: `token create|list|revoke` and `audit`. On the data
// directory (--data) they act as the local administrator; with --server, as the token in
// POWERCONTEXT_TOKEN (an admin's). Both go through the same routes (POST /v1/tokens, …).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/config.h"

namespace CLI {
class App;
}

namespace pc {

struct AdminCommand {
  CLI::App* sub = nullptr;
  // `local`: on the data directory rather than the server.
  std::function<int(const Config& config, bool local, bool json)> run;
};

std::vector<AdminCommand> AddAdminCommands(CLI::App& app);

}  // namespace pc
