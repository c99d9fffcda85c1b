// powercontext: the one binary — server, and client subcommands.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>

#include "app/admin_commands.h"
#include "app/backup_command.h"
#include "app/config.h"
#include "app/exam_command.h"
#include "app/mcp.h"
#include "app/memory_md_command.h"
#include "app/migrate_command.h"
#include "app/portable_command.h"
#include "app/serve.h"
#include "app/service_command.h"
#include "app/verify_command.h"
#include "cli/commands.h"
#include "cli/session_commands.h"
#include "wire/error_map.h"

namespace {

// Secrets (API keys) are printed masked.
bool IsSecret(const std::string& key) {
  return key == "auth_token" || (key.size() > 8 && key.substr(key.size() - 8) == "_api_key");
}

// The options every command takes: --config, --json and a flag per setting.
struct GlobalOptions {
  std::string config_file;
  bool json = false;
  std::map<std::string, std::string> flags;  // setting key → value given as a flag
  std::string allow_unauthenticated;
};

void AddGlobalOptions(CLI::App& app, GlobalOptions& g) {
  app.add_option("--config", g.config_file, "TOML configuration file")->check(CLI::ExistingFile);
  app.add_flag("--json", g.json, "print the server's JSON answer (for scripts)");
  for (const pc::SettingInfo& s : pc::Settings()) {
    if (s.key ==
        "allow_unauthenticated") {  // a bare flag means true (--allow-unauthenticated=false too)
      app.add_flag(s.flag + "{true}", g.allow_unauthenticated, s.help + " [env " + s.env + "]");
      continue;
    }
    app.add_option_function<std::string>(
        s.flag, [&flags = g.flags, key = s.key](const std::string& v) { flags[key] = v; },
        s.help + " [env " + s.env + "]");
  }
}

// config show: every setting and its value, secrets masked.
int ShowConfig(const pc::Config& cfg) {
  for (const pc::SettingInfo& s : pc::Settings()) {
    std::string v = pc::GetSetting(cfg, s.key);
    if (IsSecret(s.key) && !v.empty()) v = "****";
    std::cout << s.key << " = \"" << v << "\"    # " << s.env << ", " << s.flag << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);  // a closed connection is an error to report, not a reason to die
  CLI::App app{"PowerContext: versioned, cited memory for AI agents"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  app.set_version_flag("--version", POWERCONTEXT_VERSION);

  GlobalOptions g;
  AddGlobalOptions(app, g);

  CLI::App* serve = app.add_subcommand("serve", "run the HTTP API server (and MCP at /mcp)");
  CLI::App* mcp = app.add_subcommand(
      "mcp",
      "speak MCP over stdio: on the data directory (--data), or to a server given with --server");
  CLI::App* config = app.add_subcommand("config", "show the effective configuration");
  config->require_subcommand(1);
  CLI::App* config_show = config->add_subcommand("show", "print every setting and its value");
  std::vector<pc::ClientCommand> client = pc::AddClientCommands(app);
  std::vector<pc::AdminCommand> admin = pc::AddAdminCommands(app);
  pc::MigrateCommand migrate = pc::AddMigrateCommand(app);
  std::vector<pc::ConfigCommand> on_config = pc::AddBackupCommands(app);
  for (pc::ConfigCommand& c : pc::AddServiceCommands(app)) on_config.push_back(std::move(c));
  on_config.push_back(pc::AddVerifyCommand(app));
  std::vector<pc::ClientCommand> session = pc::AddSessionCommands(app);
  std::vector<pc::MemoryMdCommand> memory_md = pc::AddMemoryMdCommands(app);
  // `export store` and `import store`, beside memory-md and jsonl (whose commands made the
  // parents).
  for (pc::ConfigCommand& c : pc::AddPortableCommands(app)) on_config.push_back(std::move(c));
  std::vector<pc::ExamCommand> exams = pc::AddExamCommands(app);

  // A host runs `powercontext hook …`: exit 2 would block the user's prompt (Claude Code, Codex) or
  // keep the agent from stopping, so the hook's own usage and configuration errors exit 1.
  const bool hook = argc > 1 && std::string(argv[1]) == "hook";
  const int usage_error = hook ? 1 : 2;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : usage_error;
  }

  if (!g.allow_unauthenticated.empty()) g.flags["allow_unauthenticated"] = g.allow_unauthenticated;
  if (g.flags.count("auth_token"))  // other local users can read a process's arguments
    std::cerr << "powercontext: WARNING: --auth-token puts the secret on the command line, where "
                 "other local "
                 "users can read it (ps, /proc); prefer POWERCONTEXT_SERVER_AUTH_TOKEN or the "
                 "config file\n";
  auto loaded = pc::LoadConfig(g.config_file, g.flags);
  if (!loaded.ok()) {
    std::cerr << "powercontext: configuration: " << loaded.status().message() << "\n";
    return usage_error;
  }
  const pc::Config& cfg = *loaded;

  if (*serve) return pc::RunServe(cfg);
  if (*mcp) {
    // --server (flag or environment) chooses a running server; otherwise the data directory.
    bool remote = g.flags.count("server") || std::getenv("POWERCONTEXT_SERVER");
    return pc::RunMcp(cfg, remote ? cfg.server : "");
  }
  if (*config_show) return ShowConfig(cfg);
  if (*migrate.sub) return migrate.run(g.json);
  for (const pc::ConfigCommand& c : on_config)
    if (*c.sub) return c.run(cfg, g.json);
  for (const pc::ClientCommand& c : session)
    if (*c.sub) return c.run(cfg.server, g.json);
  // Administration works on the data directory when --data is given (flag or environment), else
  // on the server; a --server flag always means the server.
  const bool local =
      !g.flags.count("server") && (g.flags.count("data") || std::getenv("POWERCONTEXT_DATA"));
  for (const pc::AdminCommand& c : admin)
    if (*c.sub) return c.run(cfg, local, g.json);
  for (const pc::MemoryMdCommand& c : memory_md)
    if (*c.sub) return c.run(cfg, local, g.json);
  for (const pc::ExamCommand& c : exams)
    if (*c.sub) return c.run(cfg, g.json);
  for (const pc::ClientCommand& c : client)
    if (*c.sub) return c.run(cfg.server, g.json);
  std::cerr << "powercontext: no command given\n";
  return 2;
}
