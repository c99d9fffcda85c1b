// Commands that work on an agent host's files, without a server: `prune` (a message list's old
// tool results, session/prune.h) and `session-stats` (where sessions' context went,
// session/session_stats.h).
#pragma once

#include <functional>
#include <vector>

namespace CLI {
class App;
}

namespace pc {

struct LocalCommand {
  CLI::App* sub = nullptr;  // parsed when *sub is true
  std::function<int(bool json)> run;
};

std::vector<LocalCommand> AddSessionCommands(CLI::App& app);

}  // namespace pc
