// Commands for an agent host's side: `prune` (a message list's old tool results,
// session/prune.h) and `session-stats` (where sessions' context went, session/session_stats.h)
// work on files without a server; `hook` (hooks/host_hook.h) is run by the host and talks to one.
#pragma once

#include <vector>

#include "cli/commands.h"

namespace CLI {
class App;
}

namespace pc {

// The rows of SessionRows (command_table.h), added to `app`; the caller runs the parsed one.
std::vector<ClientCommand> AddSessionCommands(CLI::App& app);

}  // namespace pc
