// `powercontext setup claude-code|codex|cursor`: our MCP server entry and our hooks, merged into
// the host's own configuration files — never clobbering what is there, the same files after a
// second run, and `--remove` takes exactly our entries out (docs/integrations.md).
//   Claude Code: .mcp.json (project) or ~/.claude.json (user): mcpServers.powercontext;
//                .claude/settings.json or ~/.claude/settings.json: hooks (UserPromptSubmit,
//                SessionStart, Stop, SessionEnd, PreCompact) running `powercontext hook
//                claude-code`.
//   Codex:       .codex/config.toml or ~/.codex/config.toml: [mcp_servers.powercontext], in a
//                marked block; .codex/hooks.json or ~/.codex/hooks.json: the hooks.
//   Cursor:      .cursor/mcp.json or ~/.cursor/mcp.json: mcpServers.powercontext.
// A token is never written into those files (a project's are often committed): --token goes to
// ~/.config/powercontext/token (mode 0600), where the hook and `mcp --server` read it.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

struct SetupOptions {
  std::string host;     // claude-code, codex or cursor
  std::string project;  // the project folder (default: the current one), unless user
  bool user = false;    // the user's own configuration instead of the project's
  std::string server;   // the server the hooks and the MCP entry talk to
  std::string token;    // written to the token file when given
  std::string scope;    // a fixed scope for the hooks (default: derived per project)
  std::string binary;   // the powercontext executable the host runs (default: this one)
  std::string home;     // the user's home (default: $HOME)
  bool remove = false;
};

struct SetupChange {
  std::string file;
  std::string what;  // "added", "updated", "unchanged", "removed", "absent"
};

// Applies (or removes) our entries; every file is written whole through a temporary file. A file
// that is not valid JSON (or TOML), or an entry of the same name that is not ours, is an error
// naming it, and nothing is written.
Result<std::vector<SetupChange>> RunSetup(const SetupOptions& options);

// The files setup manages for these options, and the hook commands it installs (for doctor).
struct SetupFiles {
  std::string mcp;    // the MCP configuration file
  std::string hooks;  // the hooks file ("" for Cursor)
};
SetupFiles FilesFor(const SetupOptions& options);
// The command line of our hook for `event` as installed (doctor runs it).
std::string HookCommand(const SetupOptions& options, const std::string& event);

}  // namespace pc
