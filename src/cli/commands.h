// The client subcommands (scope, remember, revise, retire, entries, history, search, doctor,
// reindex, read, source, flush, prepare, handoff), in groups of a few each: parse their
// options, call the server, print a readable answer or --json.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace pc {

struct ClientCommand {
  CLI::App* sub = nullptr;  // parsed when *sub is true
  std::function<int(const std::string& server, bool json)> run;
};

// Adds the subcommands to `app`; the caller runs the one that was parsed.
std::vector<ClientCommand> AddClientCommands(CLI::App& app);

}  // namespace pc
