// `powercontext export memory-md` and `powercontext import memory-md` (memory_md/memory_md.h), on
// a server (--server) or a data directory in process (--data).
#pragma once

#include <functional>

#include "app/config.h"

namespace CLI {
class App;
}

namespace pc {

struct MemoryMdCommand {
  CLI::App* sub = nullptr;  // parsed when *sub is true
  std::function<int(const Config& config, bool local, bool json)> run;
};

std::vector<MemoryMdCommand> AddMemoryMdCommands(CLI::App& app);

}  // namespace pc
