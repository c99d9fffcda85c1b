#include "hooks/setup.h"

#include <sys/stat.h>
#include <toml++/toml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "client/token_file.h"

namespace pc {
namespace {

using OJson = nlohmann::ordered_json;  // keeps the user's keys in their order

struct HookEvent {
  const char* host_name;  // the host's event
  const char* ours;       // our event argument
  int timeout_s;
};
// Prompt and session start answer within our own deadline (1 s); the end of a session waits up
// to 20 s for the handoff, then leaves it to a background process.
constexpr HookEvent kClaudeEvents[] = {{"UserPromptSubmit", "prompt", 10},
                                       {"SessionStart", "session-start", 10},
                                       {"Stop", "stop", 30},
                                       {"SessionEnd", "session-end", 30},
                                       {"PreCompact", "pre-compact", 30}};
constexpr HookEvent kCodexEvents[] = {{"UserPromptSubmit", "prompt", 10},
                                      {"SessionStart", "session-start", 10},
                                      {"Stop", "stop", 30},
                                      {"PreCompact", "pre-compact", 30}};
constexpr const char* kTomlBegin =
    "# BEGIN powercontext (written by `powercontext setup codex`; `--remove` takes it out)";
constexpr const char* kTomlEnd = "# END powercontext";

std::string Quote(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_-+=:,./") ==
          std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Binary(const SetupOptions& o) {
  if (!o.binary.empty()) return o.binary;
  std::error_code ec;
  auto self = std::filesystem::canonical("/proc/self/exe", ec);
  return ec ? "powercontext" : self.string();
}

std::string Home(const SetupOptions& o) {
  if (!o.home.empty()) return o.home;
  const char* h = std::getenv("HOME");
  return h ? h : "";
}

std::string Project(const SetupOptions& o) {
  if (!o.project.empty()) return std::filesystem::absolute(o.project).string();
  std::error_code ec;
  return std::filesystem::current_path(ec).string();
}

Result<std::string> ReadText(const std::string& path, bool& exists) {
  std::ifstream in(path, std::ios::binary);
  exists = static_cast<bool>(in);
  if (!exists) return std::string();
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Status WriteText(const std::string& given, const std::string& text) {
  std::error_code ec;
  // A symlinked file (a dotfile manager's) is written where it points, and stays a link.
  const std::string path = std::filesystem::is_symlink(given, ec)
                               ? std::filesystem::canonical(given, ec).string()
                               : given;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".powercontext-tmp";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out << text;
    out.close();  // the last write's error shows only here (a full disk)
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return InvalidArgument("cannot write " + path + "; nothing was changed");
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0)
    ::chmod(tmp.c_str(), st.st_mode & 07777);  // keep a private file private
  std::filesystem::rename(tmp, path, ec);
  if (ec) return InvalidArgument("cannot write " + path + ": " + ec.message());
  return Status::Ok();
}

// Ours by shape, whatever the binary is called or where it lives (HookCommand's form).
bool IsOurHandler(const OJson& h, const std::string& host) {
  if (!h.is_object() || !h.contains("command") || !h["command"].is_string()) return false;
  const std::string cmd = h["command"].get<std::string>();
  return cmd.find(" hook " + host + " ") != std::string::npos &&
         cmd.find(" --server ") != std::string::npos;
}

bool IsOurServer(const OJson& s) {
  if (!s.is_object() || !s.contains("args") || !s["args"].is_array() || s["args"].size() != 3)
    return false;
  return s["args"][0] == "mcp" && s["args"][1] == "--server";
}

// Our hooks in a Claude Code settings file or a Codex hooks.json (the same shape).
Status MergeHooks(OJson& root, const SetupOptions& o) {
  if (!root.is_object()) return InvalidArgument("is not a JSON object");
  if (root.contains("hooks") && !root["hooks"].is_object())
    return InvalidArgument("has \"hooks\" that is not an object");
  const bool claude = o.host == "claude-code";
  const HookEvent* begin = claude ? std::begin(kClaudeEvents) : std::begin(kCodexEvents);
  const HookEvent* end = claude ? std::end(kClaudeEvents) : std::end(kCodexEvents);
  if (!o.remove && !root.contains("hooks")) root["hooks"] = OJson::object();
  if (!root.contains("hooks")) return Status::Ok();
  OJson& hooks = root["hooks"];
  bool emptied_any = false;
  for (const HookEvent* e = begin; e != end; ++e) {
    if (o.remove && !hooks.contains(e->host_name)) continue;
    OJson groups = hooks.contains(e->host_name) ? hooks[e->host_name] : OJson::array();
    if (!groups.is_array())
      return InvalidArgument("has hooks." + std::string(e->host_name) + " that is not an array");
    OJson kept = OJson::array();
    bool removed = false;
    for (OJson group : groups) {
      if (group.is_object() && group.contains("hooks") && group["hooks"].is_array()) {
        OJson handlers = OJson::array();
        bool had_ours = false;
        for (const OJson& h : group["hooks"]) {
          if (IsOurHandler(h, o.host))
            had_ours = true;
          else
            handlers.push_back(h);
        }
        removed = removed || had_ours;
        if (had_ours && handlers.empty()) continue;  // a group that was only ours
        group["hooks"] = handlers;
      }
      kept.push_back(group);
    }
    if (!o.remove)
      kept.push_back(OJson{{"hooks", OJson::array({OJson{{"type", "command"},
                                                         {"command", HookCommand(o, e->ours)},
                                                         {"timeout", e->timeout_s}}})}});
    if (kept.empty() && removed) {  // an event list that held only ours goes; one of yours stays
      hooks.erase(e->host_name);
      emptied_any = true;
    } else {
      hooks[e->host_name] = kept;
    }
  }
  if (hooks.empty() && emptied_any) root.erase("hooks");
  return Status::Ok();
}

Status MergeMcp(OJson& root, const SetupOptions& o) {
  if (!root.is_object()) return InvalidArgument("is not a JSON object");
  if (root.contains("mcpServers") && !root["mcpServers"].is_object())
    return InvalidArgument("has \"mcpServers\" that is not an object");
  if (root.contains("mcpServers") && root["mcpServers"].contains("powercontext") &&
      !IsOurServer(root["mcpServers"]["powercontext"]))
    return InvalidArgument(
        "has an mcpServers.powercontext entry that setup did not write; rename or remove it first");
  if (o.remove) {
    if (root.contains("mcpServers") && root["mcpServers"].contains("powercontext")) {
      root["mcpServers"].erase("powercontext");
      if (root["mcpServers"].empty()) root.erase("mcpServers");  // it held only ours
    }
    return Status::Ok();
  }
  root["mcpServers"]["powercontext"] =
      OJson{{"command", Binary(o)}, {"args", {"mcp", "--server", o.server}}};
  return Status::Ok();
}

// Codex's config.toml: our table inside a marked block, the rest of the file byte for byte as the
// user wrote it: added after a blank line at the end, replaced in place, and taken out with that
// blank line.
Result<std::string> MergeToml(const std::string& text, const SetupOptions& o,
                              const std::string& path) {
  const std::string begin_line = std::string(kTomlBegin) + "\n",
                    end_line = std::string(kTomlEnd) + "\n";
  size_t b = text.rfind(begin_line, 0) == 0 ? 0 : text.find("\n" + begin_line);
  if (b != std::string::npos && b != 0) ++b;  // past the newline
  size_t e = b == std::string::npos ? std::string::npos : text.find("\n" + end_line, b);
  if (b != std::string::npos && e == std::string::npos)
    return InvalidArgument(path + " has our BEGIN line without its END line; fix it by hand");
  if (e != std::string::npos) e += 1 + end_line.size();
  const std::string before = b == std::string::npos ? text : text.substr(0, b);
  const std::string after = e == std::string::npos ? "" : text.substr(e);
  if ((before + after).find("[mcp_servers.powercontext]") != std::string::npos)
    return InvalidArgument(path +
                           " has an [mcp_servers.powercontext] table that setup did not write; "
                           "rename or remove it first");
  const std::string block =
      begin_line + "[mcp_servers.powercontext]\ncommand = " + OJson(Binary(o)).dump() +
      "\nargs = " + OJson::array({"mcp", "--server", o.server}).dump() + "\n" + end_line;
  std::string out;
  if (o.remove) {
    if (b == std::string::npos) return text;  // nothing of ours
    std::string head = before;
    if (head.size() >= 2 && head.compare(head.size() - 2, 2, "\n\n") == 0)
      head.pop_back();  // our separator
    else if (head == "\n")
      head.clear();
    out = head + after;
  } else if (b != std::string::npos) {
    out = before + block + after;  // in place
  } else {
    out = text + (text.empty() ? "" : text.back() == '\n' ? "\n" : "\n\n") + block;
  }
  try {
    (void)toml::parse(out);
  } catch (const toml::parse_error& err) {
    return InvalidArgument(path + " would not be valid TOML (" + std::string(err.description()) +
                           "); nothing was changed");
  }
  return out;
}

struct Planned {
  std::string path, before, after;
  bool existed = false;
};

Result<Planned> PlanJson(const std::string& path, const SetupOptions& o,
                         Status (*merge)(OJson&, const SetupOptions&)) {
  Planned p;
  p.path = path;
  PC_ASSIGN_OR_RETURN(p.before, ReadText(path, p.existed));
  OJson root = OJson::object();
  if (p.existed && p.before.find_first_not_of(" \t\r\n") != std::string::npos) {
    root = OJson::parse(p.before, nullptr, false);
    if (root.is_discarded())
      return InvalidArgument(path + " is not valid JSON; nothing was changed")
          .WithDetail("file", path);
  }
  const OJson original = root;
  if (Status s = merge(root, o); !s.ok())
    return InvalidArgument(path + " " + s.message()).WithDetail("file", path);
  if (root == original) {  // nothing of ours to add or take out: the file is left as it is
    p.after = p.before;
    return p;
  }
  // An empty file after a removal held only our entries: it goes.
  p.after = root.empty() && o.remove ? "" : root.dump(2) + "\n";
  return p;
}

}  // namespace

SetupFiles FilesFor(const SetupOptions& o) {
  const std::string base = o.user ? Home(o) : Project(o);
  if (o.host == "claude-code")
    return {o.user ? base + "/.claude.json" : base + "/.mcp.json", base + "/.claude/settings.json"};
  if (o.host == "codex") return {base + "/.codex/config.toml", base + "/.codex/hooks.json"};
  return {base + "/.cursor/mcp.json", ""};
}

std::string HookCommand(const SetupOptions& o, const std::string& event) {
  std::string cmd =
      Quote(Binary(o)) + " hook " + o.host + " " + event + " --server " + Quote(o.server);
  if (!o.scope.empty()) cmd += " --scope " + Quote(o.scope);
  return cmd;
}

Result<std::vector<SetupChange>> RunSetup(const SetupOptions& o) {
  if (o.host != "claude-code" && o.host != "codex" && o.host != "cursor")
    return FieldError("host", "the host must be claude-code, codex or cursor");
  if (o.server.empty() && !o.remove)
    return FieldError("server", "a server URL is needed (--server)");
  if (o.user && Home(o).empty()) return InvalidArgument("no home directory (HOME) for --user");
  const SetupFiles files = FilesFor(o);
  // Plan every file first: a file we cannot merge into stops everything before anything is written.
  std::vector<Planned> plans;
  if (o.host == "codex") {
    Planned p;
    p.path = files.mcp;
    PC_ASSIGN_OR_RETURN(p.before, ReadText(files.mcp, p.existed));
    PC_ASSIGN_OR_RETURN(p.after, MergeToml(p.before, o, files.mcp));
    plans.push_back(std::move(p));
  } else {
    PC_ASSIGN_OR_RETURN(Planned p, PlanJson(files.mcp, o, MergeMcp));
    plans.push_back(std::move(p));
  }
  if (!files.hooks.empty()) {
    PC_ASSIGN_OR_RETURN(Planned p, PlanJson(files.hooks, o, MergeHooks));
    plans.push_back(std::move(p));
  }
  std::vector<SetupChange> out;
  for (const Planned& p : plans) {
    if (p.before == p.after || (!p.existed && p.after.empty())) {
      out.push_back({p.path, p.existed ? "unchanged" : "absent"});
      continue;
    }
    if (p.after.empty() || p.after.find_first_not_of(" \t\r\n") == std::string::npos) {
      std::error_code ec;
      std::filesystem::remove(p.path, ec);  // only our entries were in it
      out.push_back({p.path, "removed"});
      continue;
    }
    PC_RETURN_IF_ERROR(WriteText(p.path, p.after));
    out.push_back({p.path, o.remove ? "removed" : p.existed ? "updated" : "added"});
  }
  if (!o.token.empty() && !o.remove) {
    PC_RETURN_IF_ERROR(WriteTokenFile(o.token));
    out.push_back({TokenFilePath(), "updated"});
  }
  return out;
}

}  // namespace pc
