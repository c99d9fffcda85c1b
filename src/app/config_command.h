// A subcommand that runs on this machine with the effective configuration (`exam run`, `verify`):
// the CLI11 subcommand it parses, and what runs when it was given.
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
