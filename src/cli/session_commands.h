// Commands for an agent host's side: `prune` (a message list's old tool results,
// session/prune.h) and `session-stats` (where sessions' context went, session/session_stats.h)
// work on files without a server; `hook` (hooks/host_hook.h) is run by the host and talks to one.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace pc {

struct LocalCommand {
  CLI::App* sub = nullptr;  // parsed when *sub is true
  std::function<int(const std::string& server, bool json)> run;
};

std::vector<LocalCommand> AddSessionCommands(CLI::App& app);

}  // namespace pc
