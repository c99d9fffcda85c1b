#include "install/user_service.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "install/run_program.h"

namespace pc {
namespace {

constexpr const char* kHeader = "# Written by `powercontext service install`";

bool Plain(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string("/._:@+,=-").find(c) != std::string::npos;
}

// One argument as systemd's command line reads it (systemd.service, "Command lines"): `%` and `$`
// doubled so they are not specifiers or variables; anything but plain characters double-quoted.
std::string UnitArg(const std::string& arg) {
  std::string escaped;
  bool plain = !arg.empty();
  for (char c : arg) {
    plain = plain && Plain(c);
    if (c == '%' || c == '$') escaped += c;
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return plain ? escaped : "\"" + escaped + "\"";
}

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line;
}

}  // namespace

Result<std::string> UserUnitPath() {
  std::string base;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && xdg[0] == '/') {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && home[0] == '/') {
    base = std::string(home) + "/.config";
  } else {
    return InvalidArgument(
        "neither XDG_CONFIG_HOME nor HOME is an absolute path: no user configuration to write "
        "a unit into");
  }
  return base + "/systemd/user/" + kUserServiceName + ".service";
}

std::string UserUnitText(const UserUnitOptions& o) {
  std::string exec = UnitArg(o.binary) + " serve";
  if (!o.config_file.empty()) exec += " --config " + UnitArg(o.config_file);
  exec += " --data " + UnitArg(o.data_dir) + " --listen " + UnitArg(o.listen);
  return std::string(kHeader) +
         "; `powercontext service uninstall` removes it (docs/operations.md).\n"
         "[Unit]\n"
         "Description=PowerContext memory server for AI agents (this user's)\n"
         "After=network.target\n"
         "\n"
         "[Service]\n"
         "Type=simple\n"
         "ExecStart=" +
         exec +
         "\n"
         "Restart=on-failure\n"
         "RestartSec=2\n"
         "# SIGTERM stops it cleanly (a write in progress finishes; nothing acknowledged is "
         "lost).\n"
         "KillSignal=SIGTERM\n"
         "TimeoutStopSec=30\n"
         "\n"
         "[Install]\n"
         "WantedBy=default.target\n";
}

std::string ReadUnitFile(const std::string& path, bool& found) {
  std::ifstream in(path, std::ios::binary);
  found = static_cast<bool>(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool IsOurUnit(const std::string& text) { return text.rfind(kHeader, 0) == 0; }

Status Systemctl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"systemctl", "--user"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProgramRun run = RunProgram(argv, kSystemctlTimeoutSeconds);
  if (!run.started) return Unavailable("systemctl is not on PATH");
  if (run.timed_out)
    return Unavailable("systemctl --user did not answer within " +
                       std::to_string(kSystemctlTimeoutSeconds) + " s");
  if (run.exit_code == 0) return Status::Ok();
  std::string said = run.output;
  while (!said.empty() && said.back() == '\n') said.pop_back();
  return Internal("systemctl --user " + args.front() + " failed: " + said);
}

Status UserManagerReachable() {
  Status s = Systemctl({"show-environment"});
  return s.ok() || s.code() == Code::kUnavailable ? s : Unavailable(s.message());
}

UserServiceState ProbeUserService() {
  UserServiceState st;
  Result<std::string> path = UserUnitPath();
  st.unit_path = path.ok() ? *path : "";
  const std::string text = path.ok() ? ReadUnitFile(*path, st.installed) : "";
  st.ours = st.installed && IsOurUnit(text);
  if (const size_t at = text.find("\nExecStart="); st.ours && at != std::string::npos)
    st.exec_start = FirstLine(text.substr(at + 11));
  Status reach = UserManagerReachable();
  st.systemctl = reach.ok();
  if (!st.systemctl) st.systemctl_problem = reach.message();
  if (!st.systemctl) return st;
  for (auto [verb, into] :
       {std::pair{"is-enabled", &st.enabled}, std::pair{"is-active", &st.active}}) {
    ProgramRun run =
        RunProgram({"systemctl", "--user", verb, kUserServiceName}, kSystemctlTimeoutSeconds);
    *into = FirstLine(run.output);
  }
  return st;
}

std::string DescribeUserService(const UserServiceState& st) {
  if (st.unit_path.empty()) return "unknown: no user configuration directory (HOME unset)";
  if (!st.installed)
    return "not installed (" + st.unit_path + "; `powercontext service install` writes it)";
  std::string out = st.ours ? "installed" : "a unit powercontext did not write";
  out += " (" + st.unit_path + ")";
  if (!st.systemctl) return out + "; systemctl --user not available: " + st.systemctl_problem;
  return out + ", " + (st.enabled.empty() ? "enabled: unknown" : st.enabled) + ", " +
         (st.active.empty() ? "active: unknown" : st.active);
}

}  // namespace pc
