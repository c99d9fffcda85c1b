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
namespace {

using Json = nlohmann::json;

// What these commands read at most: a message list to prune (the server takes 8 MiB in one
// request; a local list may be bigger), and one transcript, which session-stats reads whole.
constexpr size_t kMaxPruneInputBytes = 64u << 20;
constexpr size_t kMaxStatsTranscriptBytes = 256u << 20;

// A file's text (a regular file, a link named on the command line followed), or standard
// input's for "-", at most `max_bytes`.
Result<std::string> ReadInput(const std::string& path, size_t max_bytes) {
  if (path == "-") return ReadBoundedFd(0, max_bytes, 0, "standard input");
  return ReadBoundedFile(path, max_bytes, FollowLinks::kYes);
}

struct PruneOpts {
  std::string file = "-", now;
  std::optional<double> ttl, ratio;
  std::optional<int64_t> min_chars, keep_turns, window;
};

// The input: a message list, or a request object as POST /v1/context/prune takes (its policy
// fields used where no option overrides them).
int RunPrune(const PruneOpts& o, bool json) {
  auto text = ReadInput(o.file, kMaxPruneInputBytes);
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
  if (o.ratio) policy.hard_clear_ratio = *o.ratio;
  if (o.min_chars) policy.min_prunable_tool_chars = *o.min_chars;
  if (o.keep_turns) policy.keep_recent_turns = *o.keep_turns;
  if (o.window) policy.context_window_tokens = *o.window;
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

// prune FILE: a message list's old tool results, pruned on this machine.
LocalCommand AddPrune(CLI::App& app) {
  auto p = std::make_shared<PruneOpts>();
  CLI::App* prune = app.add_subcommand("prune",
                                       "prune old tool results from a message list (OpenAI or "
                                       "Anthropic; cache-ttl, docs/integrations.md)");
  prune->add_option("file", p->file,
                    "a JSON message list or prune request (default -: standard input)");
  prune->add_option("--ttl", p->ttl,
                    "seconds after which a tool result may be pruned (default 30)");
  prune->add_option("--min-chars", p->min_chars,
                    "keep tool results shorter than this (default 100)");
  prune->add_option("--hard-clear-ratio", p->ratio,
                    "0 (default): keep the recent turns whole; above: clear them too past this "
                    "share of the window");
  prune->add_option("--keep-turns", p->keep_turns, "recent turns kept whole (default 1)");
  prune->add_option("--context-window", p->window,
                    "the model's context window in tokens (default 200000)");
  prune->add_option("--now", p->now, "the time to measure ages from (RFC 3339; default now)");
  return {prune, [p](const std::string&, bool json) { return RunPrune(*p, json); }};
}

// session-stats TRANSCRIPTS… or --scope: where sessions' context went.
LocalCommand AddSessionStats(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto scope = std::make_shared<std::string>(), period = std::make_shared<std::string>();
  CLI::App* stats =
      app.add_subcommand("session-stats",
                         "where sessions' context went: tool results, system prompt, assistant "
                         "text, user input (Claude Code or Codex "
                         "transcripts, or the sessions the hooks captured in a scope)");
  stats->add_option("transcripts", *files,
                    "transcript files (.jsonl), or folders of them (- for standard input)");
  stats->add_option("--scope,-s", *scope,
                    "instead: the sessions the hooks captured in this scope (asks the server)");
  stats->add_option("--period", *period, "with --scope: today, 7d or 30d (default 30d)");
  return {stats, [files, scope, period](const std::string& server, bool json) {
            if (!scope->empty()) {
              if (!files->empty())
                return ReportError(InvalidArgument("give transcripts or --scope, not both"));
              return RunScopeSessionStats(server, *scope, *period, json);
            }
            return RunSessionStats(*files, json);
          }};
}

// setup HOST: our MCP entry and hooks into a host's configuration.
LocalCommand AddSetup(CLI::App& app) {
  auto so = std::make_shared<SetupOptions>();
  CLI::App* setup = app.add_subcommand(
      "setup",
      "install our MCP entry and hooks into a host's configuration: claude-code, codex or cursor "
      "(merged with what is there; --remove takes them out)");
  setup->add_option("host", so->host, "claude-code, codex or cursor")->required();
  auto* project =
      setup->add_option("--project", so->project, "the project folder (default: this one)");
  setup->add_flag("--user", so->user, "the user's own configuration (all projects) instead")
      ->excludes(project);
  setup->add_option("--token", so->token,
                    "a token for the hooks and MCP, kept in ~/.config/powercontext/token (0600)");
  setup->add_option("--scope,-s", so->scope,
                    "a fixed scope for the hooks (default: derived from each project)");
  setup->add_flag("--remove", so->remove, "take our entries out again");
  return {setup, [so](const std::string& server, bool json) {
            SetupOptions o = *so;
            o.server = server;
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
              std::cout << "check it with: powercontext doctor " << o.host
                        << (o.user ? " --user" : "") << "\n";
            return 0;
          }};
}

// hook HOST [EVENT]: run by the host at a hook event.
LocalCommand AddHook(CLI::App& app) {
  auto h = std::make_shared<HookOptions>();
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state)
    h->state_dir = std::string(state) + "/powercontext/hooks";
  else if (const char* home = std::getenv("HOME"); home && *home)
    h->state_dir = std::string(home) + "/.local/state/powercontext/hooks";
  CLI::App* hook = app.add_subcommand("hook",
                                      "run by Claude Code or Codex at a hook event, with its JSON "
                                      "on stdin (docs/integrations.md); fails open");
  hook->add_option("host", h->host, "claude-code or codex")->required();
  hook->add_option("event", h->event,
                   "prompt, session-start, stop, session-end or pre-compact (default: the input's "
                   "hook_event_name)");
  hook->add_option("--scope,-s", h->scope,
                   "the scope (default: derived from the project: git remote or path)");
  hook->add_option("--max-bytes", h->max_bytes, "the context budget in UTF-8 bytes (default 8000)");
  hook->add_option("--timeout-ms", h->timeout_ms,
                   "prompt and session-start deadline (default 1000)");
  hook->add_option("--handoff-wait-ms", h->handoff_wait_ms,
                   "how long session end waits for the handoff before finishing it in the "
                   "background (default 20000)");
  hook->add_option("--state-dir", h->state_dir,
                   "where the transcript offsets already captured are kept");
  hook->add_flag(
      "--no-capture", [h](int64_t) { h->capture = false; },
      "prompt: context only, the prompt is not kept");
  return {hook, [h](const std::string& server, bool) {
            HookOptions o = *h;
            o.server = server;
            if (o.scope.empty())
              if (const char* s = std::getenv("POWERCONTEXT_SCOPE"); s && *s) o.scope = s;
            return RunHookOnInput(o, 0, std::cout, std::cerr);
          }};
}

}  // namespace

std::vector<LocalCommand> AddSessionCommands(CLI::App& app) {
  return {AddPrune(app), AddSessionStats(app), AddSetup(app), AddHook(app)};
}

}  // namespace pc
