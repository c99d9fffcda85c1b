// A subcommand of the composition root that runs on this machine with the effective configuration
// (the data directory, the store, the listen address): backup, restore, service, verify, exam run.
#pragma once

#include <functional>

#include "app/config.h"

namespace CLI {
class App;
}

namespace pc {

struct ConfigCommand {
  CLI::App* sub = nullptr;  // parsed when *sub is true
  std::function<int(const Config& config, bool json)> run;
};

}  // namespace pc
