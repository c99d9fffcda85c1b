// `powercontext serve`: wires the configured store, the services and the HTTP API, and runs until
// SIGINT or SIGTERM.
#pragma once

#include "app/config.h"

namespace pc {

int RunServe(const Config& config);

}  // namespace pc
