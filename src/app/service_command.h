// `powercontext service install|uninstall|status` (issue 32 item 5, docs/operations.md "Running as
// a user service"): this binary's `serve` as a per-user systemd unit (install/user_service.h),
// enabled and started with `systemctl --user` where a user manager runs. Exit codes: 0 done;
// 2 a unit powercontext did not write is in the way (left as it was); 6 the unit was written or
// removed but systemctl --user is not available (the command to run is printed); 1 systemctl
// failed. `status`: 0 installed and active, 3 not installed, 7 installed but not active (or
// systemctl cannot tell).
#pragma once

#include <vector>

#include "app/config_command.h"

namespace pc {

std::vector<ConfigCommand> AddServiceCommands(CLI::App& app);

}  // namespace pc
