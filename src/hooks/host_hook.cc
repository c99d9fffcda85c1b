#include "hooks/host_hook.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "client/api_client.h"
#include "common/bounded_read.h"
#include "common/json_parse.h"
#include "common/sha256.h"
#include "common/utf8.h"
#include "hooks/project_scope.h"
#include "session/fields.h"
#include "session/session_stats.h"
#include "session/transcript.h"

namespace pc {
using Json = nlohmann::json;

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kMaxQueryBytes = 8000;          // the spec's query is at most 8,192 characters
constexpr size_t kMaxPromptSourceBytes = 60000;  // a prompt captured as a source
constexpr size_t kMaxTurnSourceBytes = 16000;    // one transcript turn as a source
constexpr size_t kToolCallBytes = 300, kToolResultBytes = 600;
// A transcript is read from its end: the last kTranscriptTailBytes (Claude Code's transcripts reach
// tens of MiB; what a hook captures is the turns since the last one), the lines before them only
// counted, so a turn's source id is the same whatever the file's size. Past kMaxTranscriptBytes
// even counting them would eat the hook's budget: such a transcript is not read.
constexpr size_t kTranscriptTailBytes = 64u << 20;
constexpr uint64_t kMaxTranscriptBytes = 1ull << 30;
constexpr size_t kMaxHookInputBytes = 16u << 20;  // the host's JSON on stdin (a prompt, paths, ids)
constexpr int64_t kHookInputWaitMs = 2000;        // hosts write it at once and close stdin
constexpr size_t kMaxStateBytes = 4096;           // our own offset file: {"line": N}
constexpr size_t kSourceBatch = 100;              // POST /v1/sources/batch takes at most 100
constexpr size_t kSourceBatchBytes = 4u << 20;    // and one request's body is at most 8 MiB
constexpr int64_t kCaptureAllowanceMs = 8000;     // git, reading the transcript and the uploads
constexpr int64_t kMinPrepareBytes = 512;
constexpr size_t kRecentEntries = 8;  // session start's newest entries, when nothing else
constexpr int64_t kBackgroundTimeoutMs = 600000;  // a handoff finished in the background

int64_t MillisSince(SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - t).count();
}

// One diagnostic line (RFC 0028's shape): never the prompt, the content or the scope.
void Diagnose(std::ostream& err, const HookOptions& o, const std::string& event, Json fields) {
  Json line{{"component", "powercontext.hook"}, {"host", o.host}, {"event", event}};
  line.update(fields);
  err << line.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";  // never throws
}

std::string OutcomeOf(const Status& s) {
  if (s.code() == Code::kProviderUnavailable) return "server_unavailable";
  if (s.code() == Code::kNotFound || s.code() == Code::kMethodNotAllowed) return "version_mismatch";
  return std::string("error:") + CodeName(s.code());
}

std::string ScopeFor(const HookOptions& o, const Json& payload) {
  if (!o.scope.empty()) return o.scope;
  std::string cwd = StringField(payload, "cwd");
  if (cwd.empty()) {
    std::error_code ec;
    cwd = std::filesystem::current_path(ec).string();
  }
  return DeriveProjectScope(cwd);
}

std::string HostEventName(const std::string& event) {
  if (event == "prompt") return "UserPromptSubmit";
  if (event == "session-start") return "SessionStart";
  return "";
}

void EmitContext(std::ostream& out, const std::string& event, const std::string& context) {
  out << Json{{"hookSpecificOutput",
               {{"hookEventName", HostEventName(event)}, {"additionalContext", context}}}}
             .dump(-1, ' ', false, Json::error_handler_t::replace)
      << "\n";
}

// UserPromptSubmit: context for the prompt, then the prompt kept as a source.
int Prompt(const HookOptions& o, const Json& payload, std::ostream& out, std::ostream& err) {
  const auto start = SteadyClock::now();
  std::string prompt = StringField(payload, "prompt");
  if (prompt.empty()) prompt = StringField(payload, "user_prompt");
  if (prompt.empty()) {
    Diagnose(err, o, "prompt", {{"outcome", "skipped"}, {"why", "no prompt in the hook input"}});
    return 0;
  }
  const std::string scope = ScopeFor(o, payload);
  ApiClient api(o.server);
  api.SetTimeout(o.timeout_ms - MillisSince(start));
  Json diag;
  auto prepared =
      api.Post("/v1/context/prepare", Json{{"scope_id", scope},
                                           {"query", CutUtf8(prompt, kMaxQueryBytes, "")},
                                           {"max_bytes", o.max_bytes}});
  if (!prepared.ok()) {
    diag["outcome"] = OutcomeOf(prepared.status());
  } else if (!prepared->is_object() || StringField(*prepared, "status") != "ready" ||
             !(*prepared)["content"].is_string()) {
    diag["outcome"] = prepared->is_object() && StringField(*prepared, "status") == "empty"
                          ? "empty"
                          : "invalid_response";
  } else {
    const std::string content = (*prepared)["content"].get<std::string>();
    EmitContext(out, "prompt", content);
    diag["outcome"] = "ready";
    diag["content_bytes"] = content.size();
  }
  // The prompt as evidence (after the prepare, so it is not its own Experience). A connection
  // that failed above is not retried: the server is down.
  if (o.capture && diag["outcome"] != "server_unavailable") {
    api.SetTimeout(o.timeout_ms);
    const std::string session = StringField(payload, "session_id"),
                      turn = StringField(payload, "turn_id");
    const std::string id = o.host + "-prompt:" +
                           Sha256Hex(scope + std::string(1, '\0') + session + std::string(1, '\0') +
                                     turn + std::string(1, '\0') + prompt);
    Json metadata{{"origin", o.host},
                  {"event", "user_prompt_submit"},
                  {"session_id", session},
                  {"cwd", StringField(payload, "cwd")}};
    if (!turn.empty()) metadata["turn_id"] = turn;
    auto captured =
        api.Post("/v1/sources/content", Json{{"scope_id", scope},
                                             {"source_id", id},
                                             {"content", CutUtf8(prompt, kMaxPromptSourceBytes)},
                                             {"metadata", metadata}});
    diag["captured"] = captured.ok() ? "yes" : OutcomeOf(captured.status());
  }
  diag["ms"] = MillisSince(start);
  Diagnose(err, o, "prompt", diag);
  return 0;
}

// The latest handoff as the text an agent reads first: objective, where it stands (each claim's
// evidence re-checked by the server), the next action.
std::string Continuation(const Json& answer) {
  if (!answer.is_object() || !answer.contains("content") || !answer["content"].is_object())
    return "";
  const Json& c = answer["content"];
  const std::string objective = StringField(c, "objective");
  if (objective.empty()) return "";
  std::vector<std::string> unavailable;
  if (answer.contains("checks") && answer["checks"].is_array())
    for (const Json& check : answer["checks"])
      if (StringField(check, "status") == "unavailable")
        unavailable.push_back(StringField(check, "claim"));
  std::string out =
      "Where the last session stopped (its handoff; check it against the code before relying on "
      "it):\n";
  out += "Objective: " + objective + "\n";
  if (c.contains("state") && c["state"].is_array() && !c["state"].empty()) {
    out += "State:\n";
    for (const Json& s : c["state"]) out += "- " + StringField(s, "text") + "\n";
  }
  if (c.contains("next_action") && c["next_action"].is_object())
    out += "Next: " + StringField(c["next_action"], "text") + "\n";
  if (!unavailable.empty())
    out += "(Some of its evidence is no longer available: " + std::to_string(unavailable.size()) +
           " claims.)\n";
  return out;
}

// Without a handoff to continue or a query that finds anything: the memory's newest entries still
// active at the head, newest first, each with its citation, within `budget` bytes.
std::string RecentEntries(ApiClient& api, const std::string& scope, int64_t budget) {
  auto revisions = api.Get("/v1/memory/revisions", {{"scope_id", scope}, {"limit", "20"}});
  if (!revisions.ok() || !revisions->is_object() || !(*revisions)["head"].is_object() ||
      !(*revisions)["revisions"].is_array())
    return "";
  const Json head = (*revisions)["head"];
  std::string out =
      "Recent memory (newest first; untrusted history: check it against the code before relying on "
      "it):\n";
  const size_t header = out.size();
  std::vector<std::string> seen;
  for (const Json& r : (*revisions)["revisions"]) {
    if (!r.is_object() || !r["changes"].is_array()) continue;
    for (const Json& c : r["changes"]) {
      const std::string op = StringField(c, "op"), entry = StringField(c, "entry_id"),
                        version = StringField(c, "entry_version_id");
      if ((op != "add" && op != "revise") || entry.empty() || version.empty() ||
          std::find(seen.begin(), seen.end(), entry) != seen.end() || seen.size() >= kRecentEntries)
        continue;
      seen.push_back(entry);
      Json citation{{"memory_ref", head}, {"entry_id", entry}, {"entry_version_id", version}};
      auto got = api.Post("/v1/memory/entries/get",
                          Json{{"scope_id", scope}, {"citation", citation}, {"explain", true}});
      if (!got.ok() || !got->is_object() || (*got)["current"] != true)
        continue;  // revised or retired since
      const std::string line =
          "- [" + StringField(*got, "kind") + "] " + CutUtf8(StringField(*got, "text"), 600) +
          " (cite: " + StringField(head, "family") + "/" + StringField(head, "artifact_id") + "@" +
          std::to_string(head.value("revision", Json(0)).get<int64_t>()) + "#" + entry + "@" +
          version + ")\n";
      if (static_cast<int64_t>(out.size() + line.size()) > budget)
        return out.size() > header ? out : "";
      out += line;
    }
  }
  return out.size() > header ? out : "";
}

// SessionStart: the handoff's continuation, then prepared context in what is left of the budget.
int SessionStart(const HookOptions& o, const Json& payload, std::ostream& out, std::ostream& err) {
  const auto start = SteadyClock::now();
  const std::string scope = ScopeFor(o, payload);
  ApiClient api(o.server);
  api.SetTimeout(o.timeout_ms);
  Json diag{{"source", StringField(payload, "source")}};
  std::string context = "PowerContext memory for this project: scope_id \"" + scope +
                        "\" (give it to the powercontext MCP tools).\n";
  std::string query = "decisions, constraints, conventions and next steps of this project";
  auto cont = api.Post("/v1/handoff/continue", Json{{"scope_id", scope}, {"selection", "latest"}});
  if (!cont.ok()) {
    diag["handoff"] = OutcomeOf(cont.status());
  } else if (std::string text = Continuation(*cont); !text.empty()) {
    context += "\n" + text;
    const Json& c = (*cont)["content"];
    query = StringField(c, "objective") + (c.contains("next_action") && c["next_action"].is_object()
                                               ? " " + StringField(c["next_action"], "text")
                                               : "");
    diag["handoff"] = "continued";
  } else {
    diag["handoff"] = "none";
  }
  const int64_t left = o.max_bytes - static_cast<int64_t>(context.size()) - 2;
  if (left >= kMinPrepareBytes &&
      (cont.ok() || cont.status().code() != Code::kProviderUnavailable)) {
    api.SetTimeout(o.timeout_ms - MillisSince(start));
    auto prepared =
        api.Post("/v1/context/prepare", Json{{"scope_id", scope},
                                             {"query", CutUtf8(query, kMaxQueryBytes, "")},
                                             {"max_bytes", std::min<int64_t>(left, 32768)},
                                             {"include_handoff", false}});
    if (!prepared.ok())
      diag["outcome"] = OutcomeOf(prepared.status());
    else if (prepared->is_object() && StringField(*prepared, "status") == "ready" &&
             (*prepared)["content"].is_string()) {
      context += "\n" + (*prepared)["content"].get<std::string>();
      diag["outcome"] = "ready";
    } else if (std::string recent = RecentEntries(api, scope, left); !recent.empty()) {
      context += "\n" + recent;  // nothing matched the query: the newest entries instead
      diag["outcome"] = "recent";
    } else {
      diag["outcome"] = "empty";
    }
  } else if (!cont.ok()) {
    diag["outcome"] = OutcomeOf(cont.status());
  }
  if (diag.value("outcome", "") != "server_unavailable") {
    EmitContext(out, "session-start", CutUtf8(context, static_cast<size_t>(o.max_bytes), ""));
    diag["content_bytes"] = std::min<size_t>(context.size(), static_cast<size_t>(o.max_bytes));
  }
  diag["ms"] = MillisSince(start);
  Diagnose(err, o, "session-start", diag);
  return 0;
}

// A turn of the transcript: from a user's prompt up to the next one.
struct Turn {
  int64_t first_line = 0, last_line = 0;
  std::string text;
  std::array<int64_t, kContextCategories>
      chars{};  // the turn's whole text, by category (session_stats.h)
};

std::vector<Turn> Turns(const Transcript& t) {
  std::vector<Turn> out;
  bool prompted =
      false;  // the current turn has its user's prompt (what comes before the first is its)
  for (const TranscriptEntry& e : t.entries) {
    if (out.empty() || (e.part == TranscriptPart::kUser && prompted)) {
      out.push_back(Turn{e.line, e.line, ""});
      prompted = false;
    }
    prompted = prompted || e.part == TranscriptPart::kUser;
    Turn& turn = out.back();
    turn.last_line = e.line;
    turn.chars[static_cast<size_t>(CategoryOf(e.part))] += TextChars(e.text);
    std::string piece;
    switch (e.part) {
      case TranscriptPart::kUser:
        piece = "User: " + e.text;
        break;
      case TranscriptPart::kAssistant:
        piece = "Assistant: " + e.text;
        break;
      case TranscriptPart::kSystem:
        piece = "System: " + CutUtf8(e.text, kToolResultBytes);
        break;
      case TranscriptPart::kToolCall:
        piece = "Tool call: " + CutUtf8(e.text, kToolCallBytes);
        break;
      case TranscriptPart::kToolResult:
        piece = "Tool result" + (e.tool.empty() ? std::string() : " (" + e.tool + ")") + ": " +
                CutUtf8(e.text, kToolResultBytes);
        break;
    }
    turn.text += (turn.text.empty() ? "" : "\n") + piece;
  }
  for (Turn& turn : out) turn.text = CutUtf8(turn.text, kMaxTurnSourceBytes);
  return out;
}

std::string StatePath(const HookOptions& o, const std::string& transcript) {
  if (o.state_dir.empty()) return "";
  return (std::filesystem::path(o.state_dir) / (Sha256Hex(transcript) + ".json")).string();
}

int64_t CapturedUpTo(const std::string& state) {
  if (state.empty()) return 0;
  auto text = ReadBoundedFile(state, kMaxStateBytes);
  if (!text.ok()) return 0;
  auto j = ParseJson(*text);
  return j.ok() && j->is_object() && j->value("line", Json()).is_number_integer()
             ? (*j)["line"].get<int64_t>()
             : 0;
}

void SaveCaptured(const std::string& state, int64_t line) {
  if (state.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(state).parent_path(), ec);
  const std::string tmp = state + ".tmp";
  std::ofstream(tmp, std::ios::trunc) << Json{{"line", line}}.dump() << "\n";
  std::filesystem::rename(tmp, state, ec);
}

// Memory updates and a handoff from what was captured: flush, then activate at the boundary,
// finalize and commit. The outcome as one JSON object.
Json Handoff(const HookOptions& o, const std::string& scope, const std::string& boundary,
             const std::string& objective, int64_t timeout_ms) {
  ApiClient api(o.server);
  api.SetTimeout(timeout_ms);
  Json result;
  auto flushed = api.Post("/v1/memory/flush", Json{{"scope_id", scope}});
  result["memory"] = flushed.ok() ? "flushed"
                     : flushed.status().code() == Code::kCapabilityUnavailable
                         ? "needs_provider"
                         : OutcomeOf(flushed.status());
  auto activated =
      api.Post("/v1/handoff/activate",
               Json{{"scope_id", scope},
                    {"boundary_source", {{"name", "content"}, {"source_id", boundary}}},
                    {"objective", objective}});
  if (!activated.ok()) {
    result["handoff"] = activated.status().code() == Code::kCapabilityUnavailable
                            ? "needs_provider"
                            : OutcomeOf(activated.status());
    if (result["handoff"] == "needs_provider")
      result["message"] =
          "the sources are captured; the handoff needs an extraction provider (docs/extraction.md)";
    return result;
  }
  if (!activated->is_object() || StringField(*activated, "status") != "generated" ||
      !(*activated)["draft"].is_object()) {
    result["handoff"] = "ignored";  // another activation consumed this boundary
    return result;
  }
  auto prepared =
      api.Post("/v1/handoff/finalize", Json{{"scope_id", scope}, {"draft", (*activated)["draft"]}});
  if (!prepared.ok()) {
    result["handoff"] = OutcomeOf(prepared.status());
    return result;
  }
  auto committed =
      api.Post("/v1/handoff/commit", Json{{"scope_id", scope}, {"handoff", *prepared}});
  result["handoff"] = committed.ok() ? "committed" : OutcomeOf(committed.status());
  return result;
}

// Runs Handoff in a process of its own and waits up to handoff_wait_ms for its outcome; past
// that it finishes in the background (its output is not the host's: the host is not held).
Json HandoffWithin(const HookOptions& o, const std::string& scope, const std::string& boundary,
                   const std::string& objective) {
  int fds[2];
  if (pipe(fds) != 0) return Handoff(o, scope, boundary, objective, o.handoff_wait_ms);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Handoff(o, scope, boundary, objective, o.handoff_wait_ms);
  }
  if (pid == 0) {
    close(fds[0]);
    setsid();
    signal(SIGPIPE, SIG_IGN);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    const std::string line =
        Handoff(o, scope, boundary, objective, kBackgroundTimeoutMs).dump() + "\n";
    (void)!write(fds[1], line.data(), line.size());
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(o.handoff_wait_ms);
  while (true) {
    const int64_t left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now())
            .count();
    if (left <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buf[4096];
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  Json result = Json::parse(text, nullptr, false);
  if (result.is_discarded() || !result.is_object()) return Json{{"handoff", "background"}};
  return result;
}

// The transcript at `path`, or why it is skipped. Never blocks (a FIFO is refused at once, not
// waited on) and never reads without bound.
Result<Transcript> LoadTranscript(const std::string& path) {
  auto file = ReadFileTail(path, kTranscriptTailBytes, kMaxTranscriptBytes, FollowLinks::kYes);
  if (!file.ok()) {
    // The reason without the path (a diagnostic line names no content).
    const std::string& m = file.status().message();
    const std::string why = m.rfind(path + ": ", 0) == 0 ? m.substr(path.size() + 2) : m;
    return Status(file.status().code(), "cannot read the transcript: " + why);
  }
  return ParseTranscript(file->text, file->skipped_lines + 1);
}

// The turns after line `from` as sources; `boundary` is the last one's idempotency key.
Json TurnSources(const HookOptions& o, const std::string& event, const std::string& session,
                 const std::vector<Turn>& turns, int64_t from, std::string& boundary) {
  Json sources = Json::array();
  for (const Turn& t : turns) {
    if (t.first_line <= from || t.text.empty()) continue;
    boundary = o.host + "-transcript:" + session + ":" + std::to_string(t.first_line) + "-" +
               std::to_string(t.last_line);
    sources.push_back(
        Json{{"kind", "transcript"},
             {"content", t.text},
             {"idempotency_key", boundary},
             {"metadata",
              {{"origin", o.host},
               {"event", event},
               {"session_id", session},
               {"lines", std::to_string(t.first_line) + "-" + std::to_string(t.last_line)},
               {kContextCharsKey, ContextCharsJson(t.chars)}}}});
  }
  return sources;
}

int64_t MillisLeft(SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t - SteadyClock::now()).count();
}

// The sources in batches, all before `deadline`; how many were new.
Result<size_t> Upload(const std::string& server, const std::string& scope, const Json& sources,
                      SteadyClock::time_point deadline) {
  ApiClient api(server);
  size_t created = 0;
  for (size_t at = 0; at < sources.size();) {
    Json batch(Json::value_t::array);
    size_t bytes = 0;
    for (; at < sources.size() && batch.size() < kSourceBatch && bytes < kSourceBatchBytes; ++at) {
      bytes += sources[at]["content"].get_ref<const std::string&>().size();
      batch.push_back(sources[at]);
    }
    api.SetTimeout(std::max<int64_t>(MillisLeft(deadline), 1));
    PC_ASSIGN_OR_RETURN(
        Json added, api.Post("/v1/sources/batch", Json{{"scope_id", scope}, {"sources", batch}}));
    if (added.is_object() && added["sources"].is_array())
      for (const Json& s : added["sources"])
        created += s.is_object() && s.value("created", Json(false)) == true;
  }
  return created;
}

// Stop, SessionEnd, PreCompact: the transcript's new turns as sources, then the handoff.
int Capture(const HookOptions& o, const std::string& event, const Json& payload,
            std::ostream& err) {
  const auto start = SteadyClock::now();
  const std::string path = StringField(payload, "transcript_path");
  if (path.empty()) {
    Diagnose(err, o, event, {{"outcome", "skipped"}, {"why", "the host gave no transcript_path"}});
    return 0;
  }
  auto transcript = LoadTranscript(path);
  if (!transcript.ok()) {
    Diagnose(err, o, event, {{"outcome", "skipped"}, {"why", transcript.status().message()}});
    return 0;
  }
  const std::string scope = ScopeFor(o, payload);
  std::string session = StringField(payload, "session_id");
  if (session.empty()) session = transcript->session_id;
  if (session.empty()) session = Sha256Hex(path).substr(0, 16);
  const std::string state = StatePath(o, path);
  const int64_t from = CapturedUpTo(state);
  std::vector<Turn> turns = Turns(*transcript);
  std::string objective;
  for (const TranscriptEntry& e : transcript->entries)
    if (e.part == TranscriptPart::kUser) {
      objective = "Carry on from this session: " + CutUtf8(e.text, 300);
      break;
    }
  std::string boundary;
  const Json sources = TurnSources(o, event, session, turns, from, boundary);
  Json diag{{"turns", sources.size()}};
  if (sources.empty()) {
    diag["outcome"] = "nothing_new";
    diag["ms"] = MillisSince(start);
    Diagnose(err, o, event, diag);
    return 0;
  }
  // The whole hook stays within the capture allowance plus the handoff wait (setup gives the host
  // a timeout above both); the uploads share the allowance.
  const auto capture_deadline = start + std::chrono::milliseconds(kCaptureAllowanceMs);
  Result<size_t> uploaded = Upload(o.server, scope, sources, capture_deadline);
  if (!uploaded.ok()) {
    diag["outcome"] = OutcomeOf(uploaded.status());
    diag["ms"] = MillisSince(start);
    Diagnose(err, o, event, diag);
    return 0;
  }
  const size_t created = *uploaded;
  // The last turn stays open: a host may add to it after this event (another Stop hook that keeps
  // the agent going, a compaction mid-turn). It is sent again next time: unchanged it is the same
  // source; grown, a new one with the lines since.
  SaveCaptured(state, turns.back().first_line - 1);
  diag["new_sources"] = created;
  if (created == 0) {
    diag["outcome"] = "nothing_new";
    diag["ms"] = MillisSince(start);
    Diagnose(err, o, event, diag);
    return 0;
  }
  diag["outcome"] = "captured";
  if (objective.empty()) objective = "Carry on from this session.";
  HookOptions within = o;
  within.handoff_wait_ms = std::max<int64_t>(
      0, std::min<int64_t>(o.handoff_wait_ms, MillisLeft(capture_deadline) + o.handoff_wait_ms));
  diag.update(HandoffWithin(within, scope, boundary, objective));
  diag["ms"] = MillisSince(start);
  Diagnose(err, o, event, diag);
  return 0;
}

}  // namespace

std::string HookEventName(const std::string& name) {
  std::string k;
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ')
      k.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (k == "prompt" || k == "userpromptsubmit") return "prompt";
  if (k == "sessionstart") return "session-start";
  if (k == "stop") return "stop";
  if (k == "sessionend") return "session-end";
  if (k == "precompact") return "pre-compact";
  return "";
}

int RunHook(const HookOptions& o, const std::string& input, std::ostream& out, std::ostream& err) {
  if (o.host != "claude-code" && o.host != "codex") {
    err << "powercontext hook: the host must be claude-code or codex\n";
    return 1;
  }
  Result<Json> parsed = ParseJson(input);  // depth bounded: the payload is copied and walked
  if (!parsed.ok() || !parsed->is_object()) {
    Diagnose(err, o, o.event,
             {{"outcome", "skipped"}, {"why", "the hook input is not a JSON object"}});
    return 0;
  }
  const Json& payload = *parsed;
  std::string event =
      HookEventName(o.event.empty() ? StringField(payload, "hook_event_name") : o.event);
  if (event.empty()) {
    err << "powercontext hook: unknown event \""
        << (o.event.empty() ? StringField(payload, "hook_event_name") : o.event)
        << "\" (prompt, session-start, stop, session-end, pre-compact)\n";
    return 1;
  }
  // Whatever a server, a transcript or git hands us, the host goes on.
  try {
    if (event == "prompt") return Prompt(o, payload, out, err);
    if (event == "session-start") return SessionStart(o, payload, out, err);
    return Capture(o, event, payload, err);
  } catch (const std::exception& e) {
    Diagnose(err, o, event,
             {{"outcome", "internal"}, {"why", CutUtf8(EscapeInvalidUtf8(e.what()), 200)}});
    return 0;
  }
}

int RunHookOnInput(const HookOptions& o, int fd, std::ostream& out, std::ostream& err) {
  auto input = ReadBoundedFd(fd, kMaxHookInputBytes, kHookInputWaitMs, "the hook input");
  if (!input.ok()) {
    Diagnose(err, o, o.event, {{"outcome", "skipped"}, {"why", input.status().message()}});
    return 0;
  }
  return RunHook(o, *input, out, err);
}

}  // namespace pc
