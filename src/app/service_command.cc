#include "app/service_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/durable_file.h"
#include "install/user_service.h"

namespace pc {
namespace {

namespace fs = std::filesystem;

constexpr int kExitNoSystemctl = 6;  // wire/error_map.h's capability_unavailable
constexpr int kExitNotInstalled = 3;
constexpr int kExitNotActive = 7;
constexpr const char* kStartCommand =
    "systemctl --user daemon-reload && systemctl --user enable --now powercontext";

Status NotOurs(const std::string& path, const std::string& verb) {
  return InvalidArgument(path +
                         " was not written by powercontext service install (its first line "
                         "is not our header); not " +
                         verb + ": move it away first if it should go");
}

Result<std::string> ThisBinary() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Internal("cannot tell where this powercontext binary is: " + ec.message());
  return exe.string();
}

int NoSystemctl(const Status& why, const std::string& what, const std::string& command) {
  std::cerr << "powercontext: " << what << ", but systemctl --user is not available here ("
            << why.message() << "). Where a user manager runs, run:\n  " << command << "\n";
  return kExitNoSystemctl;
}

// daemon-reload, then `then…`: Ok, Unavailable (no user manager) or systemctl's failure.
Status ReloadThen(const std::vector<std::string>& then) {
  Status s = Systemctl({"daemon-reload"});
  return s.ok() ? Systemctl(then) : s;
}

// What the unit can carry: serve on this user's SQLite data directory, named by a path a unit
// file can hold (a control character would end its line and start another).
Status CheckInstallable(const Config& c) {
  if (c.store != "sqlite")
    return InvalidArgument(
        "service install serves this user's SQLite data directory; a PostgreSQL store is "
        "served by the package's system service with its configuration (docs/install.md); "
        "nothing was written");
  // The unit runs `serve --config FILE --data DIR --listen ADDR`: a setting given any other way
  // (a flag, the environment) would not reach the service, which would run without it.
  PC_ASSIGN_OR_RETURN(const Config service, LoadConfigFile(c.config_file));
  std::string dropped;
  for (const auto& [key, origin] : c.set_outside_file)
    if (key != "data" && key != "listen" && key != "server" &&
        GetSetting(c, key) != GetSetting(service, key))
      dropped += (dropped.empty() ? "" : ", ") + key + " (" + origin + ")";
  if (!dropped.empty())
    return InvalidArgument(
               "the service runs serve with --data, --listen and a configuration file (--config); "
               "these settings were given another way and would not reach it: " +
               dropped +
               ". Put them in a TOML file and install with --config FILE "
               "(README, \"Configuration\"); nothing was written")
        .WithDetail("settings", dropped);
  for (unsigned char ch : c.data_dir + c.listen + c.config_file)
    if (ch < 0x20 || ch == 0x7f)
      return InvalidArgument(
          "the data directory, listen address or configuration file holds a control character, "
          "which a unit file "
          "cannot carry; nothing was written");
  return Status::Ok();
}

int Install(const Config& c) {
  if (Status s = CheckInstallable(c); !s.ok()) return ReportError(s);
  Result<std::string> path = UserUnitPath();
  if (!path.ok()) return ReportError(path.status());
  bool found = false;
  const std::string old = ReadUnitFile(*path, found);
  if (found && !IsOurUnit(old)) return ReportError(NotOurs(*path, "replaced"));
  Result<std::string> binary = ThisBinary();
  if (!binary.ok()) return ReportError(binary.status());
  UserUnitOptions o{*binary, fs::absolute(c.data_dir).lexically_normal().string(), c.listen,
                    c.config_file};
  std::error_code ec;
  fs::create_directories(fs::path(*path).parent_path(), ec);
  if (Status s = WriteFileDurably(*path, UserUnitText(o)); !s.ok()) return ReportError(s);
  std::cout << (found ? "updated " : "wrote ") << *path << ": " << o.binary << " serve"
            << (o.config_file.empty() ? "" : " --config " + o.config_file) << " --data "
            << o.data_dir << " --listen " << o.listen << "\n";
  Status s = UserManagerReachable();
  if (!s.ok()) return NoSystemctl(s, "the unit is written", kStartCommand);
  s = ReloadThen({"enable", "--now", kUserServiceName});
  if (!s.ok()) return ReportError(s);
  std::cout << "enabled and started: systemctl --user status powercontext\n";
  return 0;
}

int Uninstall() {
  Result<std::string> path = UserUnitPath();
  if (!path.ok()) return ReportError(path.status());
  bool found = false;
  const std::string old = ReadUnitFile(*path, found);
  if (!found) {
    std::cout << "no user service installed (" << *path << ")\n";
    return 0;
  }
  if (!IsOurUnit(old)) return ReportError(NotOurs(*path, "removed"));
  Status stop = UserManagerReachable();
  if (stop.ok()) stop = Systemctl({"disable", "--now", kUserServiceName});
  if (!stop.ok() && stop.code() != Code::kUnavailable) return ReportError(stop);
  std::error_code ec;
  if (!fs::remove(*path, ec) || ec)
    return ReportError(Internal("cannot remove " + *path + ": " + ec.message()));
  std::cout << "removed " << *path << "\n";
  if (stop.code() == Code::kUnavailable)
    return NoSystemctl(stop, "the unit is removed",
                       "systemctl --user disable --now powercontext; systemctl --user "
                       "daemon-reload");
  Status reload = Systemctl({"daemon-reload"});
  if (!reload.ok()) return ReportError(reload);
  std::cout << "stopped and disabled\n";
  return 0;
}

int ShowStatus(bool json) {
  const UserServiceState st = ProbeUserService();
  const int rc = !st.installed                      ? kExitNotInstalled
                 : st.ours && st.active == "active" ? 0
                                                    : kExitNotActive;
  if (json) {
    std::cout << nlohmann::ordered_json{{"unit", st.unit_path},
                                        {"installed", st.installed},
                                        {"ours", st.ours},
                                        {"exec_start", st.exec_start},
                                        {"systemctl", st.systemctl},
                                        {"systemctl_problem", st.systemctl_problem},
                                        {"enabled", st.enabled},
                                        {"active", st.active}}
                     .dump(2)
              << "\n";
    return rc;
  }
  std::cout << "user service: " << DescribeUserService(st) << "\n";
  if (!st.exec_start.empty()) std::cout << "runs: " << st.exec_start << "\n";
  return rc;
}

}  // namespace

std::vector<ConfigCommand> AddServiceCommands(CLI::App& app) {
  CLI::App* service = app.add_subcommand(
      "service", "run the server as this user's systemd service (docs/operations.md)");
  service->require_subcommand(1);
  CLI::App* install = service->add_subcommand(
      "install",
      "write ~/.config/systemd/user/powercontext.service (this binary's serve, with --data and "
      "--listen) and enable and start it");
  CLI::App* uninstall =
      service->add_subcommand("uninstall", "stop, disable and remove the unit install wrote");
  CLI::App* status =
      service->add_subcommand("status", "whether the unit is installed, enabled and active");
  return {{install, [](const Config& c, bool) { return Install(c); }},
          {uninstall, [](const Config&, bool) { return Uninstall(); }},
          {status, [](const Config&, bool json) { return ShowStatus(json); }}};
}

}  // namespace pc
