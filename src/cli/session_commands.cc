#include "cli/session_commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command_table.h"
#include "cli/commands.h"
#include "client/api_client.h"
#include "common/bounded_read.h"
#include "common/clock.h"
#include "common/json_parse.h"
#include "hooks/host_hook.h"
#include "hooks/setup.h"
#include "session/prune.h"
#include "session/session_stats.h"

namespace pc {
using Json = nlohmann::json;

namespace {

// What these commands read at most: a message list to prune (the server takes 8 MiB in one
// request; a local list may be bigger), and one transcript, which session-stats reads whole.
constexpr size_t kMaxPruneInputBytes = 64u << 20;
constexpr size_t kMaxStatsTranscriptBytes = 256u << 20;

// The input: a message list, or a request object as POST /v1/context/prune takes (its policy
// fields used where no option overrides them).
int RunPrune(const Row&, const Opts& o, const std::string&, bool json) {
  auto text = ReadInput(o.file.empty() ? "-" : o.file, kMaxPruneInputBytes);
  if (!text.ok()) return ReportError(text.status());
  Result<Json> parsed = ParseJson(*text);  // depth bounded, as POST /v1/context/prune reads it
  if (!parsed.ok())
    return ReportError(
        InvalidArgument("the input is not JSON (a message list, or {\"messages\": […], …}): " +
                        parsed.status().message()));
  Json input = std::move(parsed).value();
  PrunePolicy policy;
  Json messages;
  if (input.is_object()) {
    try {  // the request's own policy fields, as POST /v1/context/prune takes them
      messages = input.value("messages", Json());
      policy.ttl_seconds = input.value("ttl", policy.ttl_seconds);
      policy.min_prunable_tool_chars =
          input.value("min_prunable_tool_chars", policy.min_prunable_tool_chars);
      policy.hard_clear_ratio = input.value("hard_clear_ratio", policy.hard_clear_ratio);
      policy.keep_recent_turns = input.value("keep_recent_turns", policy.keep_recent_turns);
      policy.context_window_tokens =
          input.value("context_window_tokens", policy.context_window_tokens);
    } catch (const Json::exception&) {
      return ReportError(
          InvalidArgument("a policy field of the request has the wrong type (numbers expected)"));
    }
    if (input.contains("now") && input["now"].is_string())
      policy.now_ms = ParseRfc3339(input["now"].get<std::string>());
  } else {
    messages = std::move(input);
  }
  if (o.ttl) policy.ttl_seconds = *o.ttl;
  if (o.hard_clear_ratio) policy.hard_clear_ratio = *o.hard_clear_ratio;
  if (o.min_chars) policy.min_prunable_tool_chars = *o.min_chars;
  if (o.keep_turns) policy.keep_recent_turns = *o.keep_turns;
  if (o.context_window) policy.context_window_tokens = *o.context_window;
  if (!o.now.empty()) {
    policy.now_ms = ParseRfc3339(o.now);
    if (!policy.now_ms) return ReportError(InvalidArgument("--now must be an RFC 3339 time"));
  }
  auto out = PruneMessages(messages, policy, NowMillis());
  if (!out.ok()) return ReportError(out.status());
  const Json answer = PruneResultJson(*out, std::move(messages));
  if (json) {
    std::cout << answer.dump(2) << "\n";
    return 0;
  }
  // The pruned list on stdout (ready to send), what it saved on stderr.
  std::cout << answer["messages"].dump(2) << "\n";
  std::cerr << "pruned " << out->pruned.size() << " of " << out->tool_results
            << " tool results: " << out->chars_before << " -> " << out->chars_after
            << " characters (saved " << answer["saved_ratio"].get<double>() * 100 << "%)\n";
  for (const std::string& note : out->notes) std::cerr << "note: " << note << "\n";
  return 0;
}

// Each transcript file, or every *.jsonl under a directory (a host's session folder), in name
// order; links inside a folder are not followed.
Result<std::vector<std::string>> TranscriptFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (auto it = std::filesystem::recursive_directory_iterator(p, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (it->symlink_status().type() == std::filesystem::file_type::regular &&
            it->path().extension() == ".jsonl")
          found.push_back(it->path().string());
      std::sort(found.begin(), found.end());
      if (found.empty())
        return InvalidArgument("no .jsonl transcripts under " + p).WithDetail("file", p);
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

// Over the sessions the hooks captured in a scope (GET /v1/stats?sessions=true).
int RunScopeSessionStats(const std::string& server, const std::string& scope,
                         const std::string& period, bool json) {
  ApiClient api(server);
  std::map<std::string, std::string> q{{"scope_id", scope}, {"sessions", "true"}};
  if (!period.empty()) q["period"] = period;
  auto r = api.Get("/v1/stats", q);
  if (!r.ok()) return ReportError(r.status());
  const Json& sessions = (*r)["sessions"];
  std::cout << (json ? sessions.dump(2) + "\n"
                     : FormatSessionStats(SessionStatsFromJson(sessions)));
  return 0;
}

int RunSessionStats(const std::vector<std::string>& paths, bool json) {
  if (paths.empty())
    return ReportError(InvalidArgument("give transcripts (files or folders), or --scope"));
  auto files = TranscriptFiles(paths);
  if (!files.ok()) return ReportError(files.status());
  std::vector<SessionChars> sessions;
  for (const std::string& f : *files) {
    auto text = ReadInput(f, kMaxStatsTranscriptBytes);
    if (!text.ok()) return ReportError(text.status());
    auto t = ParseTranscript(*text);
    if (!t.ok())
      return ReportError(
          Status(t.status().code(), f + ": " + t.status().message()).WithDetail("file", f));
    sessions.push_back(CountSession(f, *t));
  }
  const SessionStats stats = Summarize(std::move(sessions));
  std::cout << (json ? SessionStatsJson(stats).dump(2) + "\n" : FormatSessionStats(stats));
  return 0;
}

// session-stats TRANSCRIPTS… or --scope: where sessions' context went.
int RunStats(const Row&, const Opts& o, const std::string& server, bool json) {
  if (o.scope.empty()) return RunSessionStats(o.transcripts, json);
  if (!o.transcripts.empty())
    return ReportError(InvalidArgument("give transcripts or --scope, not both"));
  return RunScopeSessionStats(server, o.scope, o.period, json);
}

// setup HOST: our MCP entry and hooks into a host's configuration.
int RunSetupCommand(const Row&, const Opts& opts, const std::string& server, bool json) {
  SetupOptions o{opts.host,  opts.project, opts.user, server,     opts.token,
                 opts.scope, "",           "",        opts.remove};
  auto changes = RunSetup(o);
  if (!changes.ok()) return ReportError(changes.status());
  Json j = Json::array();
  for (const SetupChange& c : *changes) {
    j.push_back(Json{{"file", c.file}, {"change", c.what}});
    if (!json) std::cout << c.what << "  " << c.file << "\n";
  }
  if (json)
    std::cout << j.dump(2) << "\n";
  else if (!o.remove)
    std::cout << "check it with: powercontext doctor " << o.host << (o.user ? " --user" : "")
              << "\n";
  return 0;
}

// Where a hook keeps the transcript offsets it captured, unless --state-dir says.
std::string DefaultStateDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state)
    return std::string(state) + "/powercontext/hooks";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.local/state/powercontext/hooks";
  return "";
}

// hook HOST [EVENT]: run by the host at a hook event.
int RunHookCommand(const Row&, const Opts& opts, const std::string& server, bool) {
  HookOptions o;
  o.host = opts.host;
  o.event = opts.event;
  o.server = server;
  o.scope = opts.scope;
  if (o.scope.empty())
    if (const char* s = std::getenv("POWERCONTEXT_SCOPE"); s && *s) o.scope = s;
  o.max_bytes = opts.max_bytes;
  o.timeout_ms = opts.timeout_ms.value_or(o.timeout_ms);
  o.handoff_wait_ms = opts.handoff_wait_ms.value_or(o.handoff_wait_ms);
  o.state_dir = opts.state_dir.empty() ? DefaultStateDir() : opts.state_dir;
  o.capture = !opts.no_capture;
  return RunHookOnInput(o, 0, std::cout, std::cerr);
}

}  // namespace

const std::vector<Row>& SessionRows() {
  static const std::vector<Row> rows = {
      {"prune",
       "prune old tool results from a message list (OpenAI or Anthropic; cache-ttl, "
       "docs/integrations.md)",
       {Opt("file", "a JSON message list or prune request (default -: standard input)",
            &Opts::file),
        Opt("--ttl", "seconds after which a tool result may be pruned (default 30)", &Opts::ttl),
        Opt("--min-chars", "keep tool results shorter than this (default 100)", &Opts::min_chars),
        Opt("--hard-clear-ratio",
            "0 (default): keep the recent turns whole; above: clear them too past this share of "
            "the window",
            &Opts::hard_clear_ratio),
        Opt("--keep-turns", "recent turns kept whole (default 1)", &Opts::keep_turns),
        Opt("--context-window", "the model's context window in tokens (default 200000)",
            &Opts::context_window),
        Opt("--now", "the time to measure ages from (RFC 3339; default now)", &Opts::now)},
       {},
       nullptr,
       Json::object(),
       RunPrune},
      {"session-stats",
       "where sessions' context went: tool results, system prompt, assistant text, user input "
       "(Claude Code or Codex transcripts, or the sessions the hooks captured in a scope)",
       {Opt("transcripts", "transcript files (.jsonl), or folders of them (- for standard input)",
            &Opts::transcripts),
        Opt("--scope,-s",
            "instead: the sessions the hooks captured in this scope (asks the server)",
            &Opts::scope),
        Opt("--period", "with --scope: today, 7d or 30d (default 30d)", &Opts::period)},
       {},
       nullptr,
       Json::object(),
       RunStats},
      {"setup",
       "install our MCP entry and hooks into a host's configuration: claude-code, codex or cursor "
       "(merged with what is there; --remove takes them out)",
       {Opt("host", "claude-code, codex or cursor", &Opts::host).Required(),
        Opt("--project", "the project folder (default: this one)", &Opts::project),
        Opt("--user", "the user's own configuration (all projects) instead", &Opts::user)
            .Excludes("--project"),
        Opt("--token", "a token for the hooks and MCP, kept in ~/.config/powercontext/token (0600)",
            &Opts::token),
        Opt("--scope,-s", "a fixed scope for the hooks (default: derived from each project)",
            &Opts::scope),
        Opt("--remove", "take our entries out again", &Opts::remove)},
       {},
       nullptr,
       Json::object(),
       RunSetupCommand},
      {"hook",
       "run by Claude Code or Codex at a hook event, with its JSON on stdin "
       "(docs/integrations.md); fails open",
       {Opt("host", "claude-code or codex", &Opts::host).Required(),
        Opt("event",
            "prompt, session-start, stop, session-end or pre-compact (default: the input's "
            "hook_event_name)",
            &Opts::event),
        Opt("--scope,-s", "the scope (default: derived from the project: git remote or path)",
            &Opts::scope),
        Opt("--max-bytes", "the context budget in UTF-8 bytes (default 8000)", &Opts::max_bytes),
        Opt("--timeout-ms", "prompt and session-start deadline (default 1000)", &Opts::timeout_ms),
        Opt("--handoff-wait-ms",
            "how long session end waits for the handoff before finishing it in the background "
            "(default 20000)",
            &Opts::handoff_wait_ms),
        Opt("--state-dir", "where the transcript offsets already captured are kept",
            &Opts::state_dir),
        Opt("--no-capture", "prompt: context only, the prompt is not kept", &Opts::no_capture)},
       {},
       nullptr,
       Json::object(),
       RunHookCommand},
  };
  return rows;
}

std::vector<ClientCommand> AddSessionCommands(CLI::App& app) {
  return AddRows(app, SessionRows(), std::make_shared<Opts>());
}

}  // namespace pc
