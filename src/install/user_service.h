// The per-user systemd service (issue 32 item 5, docs/operations.md "Running as a user service"):
// a unit in the user's systemd configuration that runs this binary's `serve`, so a developer's
// agents find a server after a reboot without root. The unit file carries a header naming its
// writer: a unit somebody else wrote is never replaced or removed.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

inline constexpr const char* kUserServiceName = "powercontext";
// systemctl answers at once or hangs on a user bus that is not there; this long, then it has not.
inline constexpr int kSystemctlTimeoutSeconds = 10;

struct UserUnitOptions {
  std::string binary;       // absolute path of the powercontext binary
  std::string data_dir;     // absolute
  std::string listen;       // host:port
  std::string config_file;  // absolute; "" for none
};

// $XDG_CONFIG_HOME/systemd/user/powercontext.service ($HOME/.config when XDG_CONFIG_HOME is unset
// or not absolute, as the XDG base directory specification says). InvalidArgument without either.
Result<std::string> UserUnitPath();

// The unit's text: the header, then [Unit], [Service] (ExecStart quoted as systemd reads it) and
// [Install] (default.target: started with the user's manager).
std::string UserUnitText(const UserUnitOptions& options);

// The text of the file at `path`; `found` false when there is none.
std::string ReadUnitFile(const std::string& path, bool& found);

// Whether `text` is a unit UserUnitText wrote (its first line is the header).
bool IsOurUnit(const std::string& text);

// What systemctl --user says, when it can say anything.
struct UserServiceState {
  std::string unit_path;
  bool installed = false;         // a file at unit_path
  bool ours = false;              // ... with our header
  std::string exec_start;         // its ExecStart= value, when ours
  bool systemctl = false;         // `systemctl --user` reaches a user manager
  std::string systemctl_problem;  // why not, when !systemctl
  std::string enabled, active;    // `systemctl --user is-enabled|is-active powercontext`
};

// Reads the unit file and asks systemctl --user (each call at most kSystemctlTimeoutSeconds).
UserServiceState ProbeUserService();

// `systemctl --user ARGS…`: Ok, or Internal with what it printed; Unavailable when systemctl is
// not on PATH or does not answer in time.
Status Systemctl(const std::vector<std::string>& args);

// Whether `systemctl --user` reaches this user's manager (systemctl may be installed where none
// runs: a container, a session without a user bus): Ok, or Unavailable saying why not.
Status UserManagerReachable();

// The doctor's line: "installed, enabled, active (PATH)", "not installed …", and so on.
std::string DescribeUserService(const UserServiceState& state);

}  // namespace pc
