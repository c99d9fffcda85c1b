// `powercontext verify [--data DIR | --store URL] [--scope NAME] [--json]` (issue 32): checks the
// store's invariants on one read-only snapshot (src/verify/), beside a server that keeps serving.
// Exit 0: no violation (warnings may be printed); 1: violations, each with its kind, scope and
// ids; 2: a usage error or a store that cannot be opened.
#pragma once

#include "app/config_command.h"

namespace pc {

using VerifyCommand = ConfigCommand;

VerifyCommand AddVerifyCommand(CLI::App& app);

}  // namespace pc
