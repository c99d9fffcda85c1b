// `powercontext service install|uninstall|status` and doctor's user-service line (issue 32 item
// 5, docs/operations.md): the unit written under $XDG_CONFIG_HOME runs this binary's serve with
// the absolute data directory and the listen address, quoted as systemd reads it; a unit somebody
// else wrote is never replaced or removed; without systemctl the unit is still written, the
// command to run is printed and the exit code is 6; with a systemctl on PATH (a script that
// records its arguments) install reloads, enables and starts it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Sets an environment variable for the test's lifetime (the CLI runs inherit it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class ServiceTest : public ::testing::Test {
 protected:
  ServiceTest()
      : config_("XDG_CONFIG_HOME", tmp_.path() + "/config"), path_("PATH", tmp_.path() + "/bin") {
    fs::create_directories(tmp_.path() + "/bin");
  }
  void SetUp() override {
    if (TestingPostgres())  // every spawned binary is configured for PostgreSQL there
      GTEST_SKIP() << "the user service serves a SQLite data directory; with a PostgreSQL store "
                      "install refuses (ServiceTest.WhatTheUnitCannotCarryIsRefused)";
  }
  std::string Unit() const { return tmp_.path() + "/config/systemd/user/powercontext.service"; }
  // A systemctl that logs its arguments and says the service is enabled and active.
  void FakeSystemctl() {
    WriteScript("echo \"$@\" >> " + tmp_.path() +
                "/systemctl.log\n"
                "case \"$2\" in is-enabled) echo enabled;; is-active) echo active;; esac\n"
                "exit 0\n");
  }
  void WriteScript(const std::string& body) {
    const std::string script = tmp_.path() + "/bin/systemctl";
    std::ofstream(script) << "#!/bin/sh\n" << body;
    ::chmod(script.c_str(), 0755);
  }
  TempDir tmp_;
  ScopedEnv config_, path_;
};

TEST_F(ServiceTest, InstallWithoutSystemctlWritesTheUnitAndSaysWhatToRun) {
  const std::string data = tmp_.path() + "/my data%1";
  CliResult r = RunCli({"service", "install", "--data", data, "--listen", "127.0.0.1:8799"});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("systemctl --user is not available"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("systemctl --user daemon-reload && systemctl --user enable --now "
                       "powercontext"),
            std::string::npos)
      << r.err;
  const std::string unit = Slurp(Unit());
  EXPECT_EQ(unit.rfind("# Written by `powercontext service install`", 0), 0u) << unit;
  const std::string binary = fs::canonical(POWERCONTEXT_BIN).string();
  EXPECT_NE(unit.find("\nExecStart=" + binary + " serve --data \"" + tmp_.path() +
                      "/my data%%1\" --listen 127.0.0.1:8799\n"),
            std::string::npos)
      << unit;
  EXPECT_NE(unit.find("\n[Install]\nWantedBy=default.target\n"), std::string::npos) << unit;

  // Installed again (ours): updated in place.
  CliResult again = RunCli({"service", "install", "--data", tmp_.path() + "/d2"});
  EXPECT_EQ(again.exit_code, 6) << again.err;
  EXPECT_NE(again.out.find("updated " + Unit()), std::string::npos) << again.out;
  EXPECT_NE(Slurp(Unit()).find(" serve --data " + tmp_.path() + "/d2 --listen 127.0.0.1:8787\n"),
            std::string::npos);

  CliResult status = RunCli({"service", "status", "--json"});
  EXPECT_EQ(status.exit_code, 7) << status.err;
  json st = json::parse(status.out);
  EXPECT_EQ(st["installed"], true);
  EXPECT_EQ(st["ours"], true);
  EXPECT_EQ(st["systemctl"], false);
  EXPECT_EQ(st["unit"], Unit());

  CliResult removed = RunCli({"service", "uninstall"});
  EXPECT_EQ(removed.exit_code, 6) << removed.err;
  EXPECT_FALSE(fs::exists(Unit()));
  CliResult none = RunCli({"service", "status"});
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_NE(none.out.find("not installed"), std::string::npos) << none.out;
}

// systemctl installed where no user manager runs (a container, a login without a user bus), as
// on the machine these docs were captured on: the same as no systemctl at all.
TEST_F(ServiceTest, SystemctlWithoutAUserManagerCountsAsAbsent) {
  WriteScript("echo 'Failed to connect to bus: No medium found' >&2\nexit 1\n");
  CliResult r = RunCli({"service", "install"});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("Failed to connect to bus"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(Unit()));
  CliResult removed = RunCli({"service", "uninstall"});
  EXPECT_EQ(removed.exit_code, 6) << removed.err;
  EXPECT_FALSE(fs::exists(Unit()));
}

TEST_F(ServiceTest, AUnitPowercontextDidNotWriteIsNeverReplacedOrRemoved) {
  fs::create_directories(fs::path(Unit()).parent_path());
  const std::string theirs = "[Service]\nExecStart=/usr/local/bin/their-own-server\n";
  std::ofstream(Unit()) << theirs;
  CliResult install = RunCli({"service", "install"});
  EXPECT_EQ(install.exit_code, 2);
  EXPECT_NE(install.err.find("was not written by powercontext"), std::string::npos) << install.err;
  EXPECT_EQ(Slurp(Unit()), theirs);
  CliResult uninstall = RunCli({"service", "uninstall"});
  EXPECT_EQ(uninstall.exit_code, 2);
  EXPECT_EQ(Slurp(Unit()), theirs);
  CliResult status = RunCli({"service", "status"});
  EXPECT_EQ(status.exit_code, 7);
  EXPECT_NE(status.out.find("a unit powercontext did not write"), std::string::npos) << status.out;
}

// The unit runs serve on a SQLite data directory: a PostgreSQL store, or a path a unit file cannot
// carry (a newline would start a line of its own), is refused, and nothing is written.
TEST_F(ServiceTest, WhatTheUnitCannotCarryIsRefused) {
  CliResult pg = RunCli({"--store", "postgresql://pc@127.0.0.1:1/pc", "service", "install"});
  EXPECT_EQ(pg.exit_code, 2) << pg.err;
  EXPECT_NE(pg.err.find("PostgreSQL store"), std::string::npos) << pg.err;
  CliResult newline =
      RunCli({"service", "install", "--data", tmp_.path() + "/data\nExecStartPre=/bin/false"});
  EXPECT_EQ(newline.exit_code, 2) << newline.err;
  EXPECT_NE(newline.err.find("control character"), std::string::npos) << newline.err;
  CliResult control = RunCli({"service", "install", "--data", tmp_.path() + "/da\tta"});
  EXPECT_EQ(control.exit_code, 2) << control.err;
  EXPECT_FALSE(fs::exists(Unit()));
}

// The unit carries --data, --listen and the configuration file: a setting given by a flag or the
// environment would silently not reach the service, so it is refused, naming each; a flag that
// only repeats what the service gets anyway is not. A --config file is carried, by its absolute
// path.
TEST_F(ServiceTest, SettingsTheUnitCannotCarryAreRefusedAndTheConfigFileIsCarried) {
  CliResult flag = RunCli({"service", "install", "--embed-provider", "hash"});
  EXPECT_EQ(flag.exit_code, 2) << flag.err;
  EXPECT_NE(flag.err.find("embed_provider (flag --embed-provider)"), std::string::npos) << flag.err;
  EXPECT_NE(flag.err.find("--config FILE"), std::string::npos) << flag.err;
  {
    ScopedEnv env("POWERCONTEXT_RECONCILE", "reject");
    CliResult from_env = RunCli({"service", "install"});
    EXPECT_EQ(from_env.exit_code, 2) << from_env.err;
    EXPECT_NE(from_env.err.find("reconcile (environment POWERCONTEXT_RECONCILE)"),
              std::string::npos)
        << from_env.err;
  }
  EXPECT_FALSE(fs::exists(Unit())) << "a refusal writes nothing";

  // The default, given again, is no loss.
  EXPECT_EQ(RunCli({"service", "install", "--store", "sqlite"}).exit_code, 6);
  fs::remove(Unit());

  const std::string file = tmp_.path() + "/pc.toml";
  std::ofstream(file) << "embed_provider = \"hash\"\nreconcile = \"reject\"\n";
  const fs::path cwd = fs::current_path();
  fs::current_path(tmp_.path());  // relative --config and --data, made absolute in the unit
  CliResult carried = RunCli({"service", "install", "--config", "pc.toml", "--data", "d"});
  fs::current_path(cwd);
  EXPECT_EQ(carried.exit_code, 6) << carried.err;
  EXPECT_NE(Slurp(Unit()).find(" serve --config " + fs::canonical(file).string() + " --data " +
                               fs::canonical(tmp_.path()).string() + "/d --listen "),
            std::string::npos)
      << Slurp(Unit());
  // A flag that agrees with the file is carried by the file.
  EXPECT_EQ(RunCli({"service", "install", "--config", file, "--embed-provider", "hash"}).exit_code,
            6);
}

TEST_F(ServiceTest, InstallWithSystemctlReloadsEnablesAndStarts) {
  FakeSystemctl();
  CliResult r = RunCli({"service", "install", "--data", tmp_.path() + "/data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("enabled and started"), std::string::npos) << r.out;
  EXPECT_EQ(Slurp(tmp_.path() + "/systemctl.log"),
            "--user show-environment\n--user daemon-reload\n--user enable --now powercontext\n");
  CliResult status = RunCli({"service", "status"});
  EXPECT_EQ(status.exit_code, 0) << status.out;
  EXPECT_NE(status.out.find("installed (" + Unit() + "), enabled, active"), std::string::npos)
      << status.out;
  CliResult removed = RunCli({"service", "uninstall"});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_FALSE(fs::exists(Unit()));
  EXPECT_NE(Slurp(tmp_.path() + "/systemctl.log")
                .find("--user disable --now powercontext\n--user daemon-reload\n"),
            std::string::npos);
}

TEST_F(ServiceTest, DoctorReportsTheUserService) {
  ServerProcess server(tmp_.path() + "/served");
  ASSERT_TRUE(server.Start());
  CliResult before = RunCli({"doctor", "--server", server.url()});
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("user service: not installed (" + Unit()), std::string::npos)
      << before.out;
  ASSERT_EQ(RunCli({"service", "install"}).exit_code, 6);
  CliResult after = RunCli({"doctor", "--server", server.url()});
  EXPECT_NE(
      after.out.find("user service: installed (" + Unit() + "); systemctl --user not available"),
      std::string::npos)
      << after.out;
}

}  // namespace
}  // namespace pc::testing
