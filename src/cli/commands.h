// The client subcommands (scope, remember, revise, retire, entries, history, search, doctor,
// reindex, read, source, flush, prepare, handoff, stats; candidate, experience, review; work): a
// table of rows (command_table.h), each parsing its options, calling the server and printing a
// readable answer or --json.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"

namespace CLI {
class App;
}

namespace pc {

struct ClientCommand {
  CLI::App* sub = nullptr;  // parsed when *sub is true
  std::function<int(const std::string& server, bool json)> run;
};

// Prints a failed request's message, code and details on stderr; returns its exit code
// (wire/error_map.h). Every subcommand reports errors this way.
int ReportError(const Status& s);

// Adds the subcommands to `app` (the rows of commands.cc and review_commands.cc, as
// command_table.h reads them); the caller runs the one that was parsed.
std::vector<ClientCommand> AddClientCommands(CLI::App& app);

}  // namespace pc
