// `powercontext export store --out FILE [--scope S]` and `powercontext import store --in FILE`
// (issue 32, docs/export.md): a store, or one scope, as the portable format, and that file into an
// empty store of either kind (portable/). Every refusal is a message on stderr and a non-zero
// exit, and changes nothing.
#pragma once

#include <vector>

#include "app/config_command.h"

namespace pc {

// Adds `store` under the `export` and `import` commands, which must exist already.
std::vector<ConfigCommand> AddPortableCommands(CLI::App& app);

}  // namespace pc
