#include "cli/commands.h"

#include <cctype>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command_table.h"
#include "cli/format.h"
#include "common/bounded_read.h"
#include "common/json_parse.h"
#include "hooks/doctor.h"
#include "install/user_service.h"
#include "wire/error_map.h"

namespace pc {
namespace {

// A citation argument: its string form as it is, or the JSON object an answer printed.
Result<Json> CitationArgument(const std::string& arg) {
  if (arg.empty() || arg[0] != '{') return Json(arg);
  auto parsed = ParseJson(arg);
  if (!parsed.ok()) return InvalidArgument("citation: " + parsed.status().message());
  return std::move(parsed).value();
}

// What the CLI reads from a file or standard input to send (an entry's text, a JSON document) at
// most: past it the server would refuse the body anyway, and /dev/zero or a FIFO never ends.
constexpr size_t kMaxInputBytes = 64u << 20;

// The text of an entry: the argument, "-" for standard input, or --file.
Result<std::string> EntryText(const std::string& text, const std::string& file) {
  if (!file.empty()) return ReadInput(file, kMaxInputBytes);
  if (text == "-") return ReadInput("-", kMaxInputBytes);
  if (text.empty()) return InvalidArgument("give the text as an argument, - for stdin, or --file");
  return text;
}

// The converters of the rows' options (command_table.h: Convert).

Status EntryTextArg(const Opts& o, const OptionSpec& spec, Request& r) {
  PC_ASSIGN_OR_RETURN(std::string text, EntryText(TextOf(o, spec), o.file));
  r.Set(spec.to, text);
  return Status::Ok();
}

// --scope is the request's scope_id as it is: a caller-chosen name (project:orders-importer) or a
// server id (scp_…). A write to a name nobody used creates the scope; a read of one finds nothing.
Status ScopeArg(const Opts& o, const OptionSpec& spec, Request& r) {
  if (TextOf(o, spec).empty())
    return InvalidArgument("give --scope (a name such as project:orders, or scp_…)");
  r.Set(spec.to, TextOf(o, spec));
  return Status::Ok();
}

// A --cite as memory evidence of a handoff.
Result<Json> MemoryEvidence(const std::string& arg) {
  PC_ASSIGN_OR_RETURN(Json cite, CitationArgument(arg));
  return Json{{"kind", "memory"}, {"memory_citation", cite}};
}

Status MetadataArg(const Opts& o, const OptionSpec& spec, Request& r) {
  if (TextOf(o, spec).empty()) return Status::Ok();
  Result<Json> parsed = ParseJson(TextOf(o, spec));
  if (!parsed.ok()) return InvalidArgument("--metadata: " + parsed.status().message());
  if (!parsed->is_object()) return InvalidArgument("--metadata must be a JSON object");
  r.Set(spec.to, *parsed);
  return Status::Ok();
}

// scope settings --set NAME=VALUE and --clear NAME: the body's fields, named as they are.
Status SetSettingsArg(const Opts& o, const OptionSpec& spec, Request& r) {
  for (const std::string& s : ListOf(o, spec)) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("--set takes NAME=VALUE, got \"" + s + "\"");
    r.body[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return Status::Ok();
}

Status ClearSettingsArg(const Opts& o, const OptionSpec& spec, Request& r) {
  for (const std::string& c : ListOf(o, spec)) r.body[c] = nullptr;
  return Status::Ok();
}

// The scope as one path segment.
std::string PathSegment(const std::string& scope) {
  static const char* kHex = "0123456789ABCDEF";
  std::string escaped;
  for (unsigned char c : scope) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':') {
      escaped.push_back(static_cast<char>(c));
    } else {
      escaped += '%';
      escaped += kHex[c >> 4];
      escaped += kHex[c & 15];
    }
  }
  return escaped;
}

// The rows whose route depends on their options (command_table.h: Run).

// scope settings: GET /v1/scopes/SCOPE/settings, or PUT it to change the gates.
int RunScopeSettings(const Row& row, const Opts& o, const std::string& server, bool json) {
  const std::string path = "/v1/scopes/" + PathSegment(o.scope) + "/settings";
  Row r = row;
  r.route = {o.settings.empty() && o.clear.empty() ? "GET" : "PUT", path.c_str()};
  return RunRoute(r, o, server, json);
}

// history: the revisions, one revision (--revision) or an entry's versions (--entry).
int RunHistory(const Row& row, const Opts& o, const std::string& server, bool json) {
  std::string path;
  Row r = row;
  if (!o.entry.empty()) {
    path = "/v1/memory/entries/" + o.entry + "/versions";
    r.print = FormatVersions;
  } else if (o.revision) {
    path = "/v1/memory/revisions/" + std::to_string(*o.revision);
    r.print = FormatRevision;
  } else {
    return RunRoute(row, o, server, json);
  }
  r.route.path = path.c_str();
  return RunRoute(r, o, server, json);
}

// flush --last reads the last flush instead of running one.
int RunFlush(const Row& row, const Opts& o, const std::string& server, bool json) {
  if (!o.last) return RunRoute(row, o, server, json);
  Row r = row;
  r.route = {"GET", "/v1/memory/flush/last"};
  r.constants = Json::object();
  r.print = FormatLastFlush;
  return RunRoute(r, o, server, json);
}

int HostDoctor(const SetupOptions& s, bool json) {
  if (s.host != "claude-code" && s.host != "codex" && s.host != "cursor")
    return ReportError(InvalidArgument("the host must be claude-code, codex or cursor"));
  std::vector<DoctorCheck> checks = RunHostDoctor(s);
  bool all = true;
  Json j = Json::array();
  for (const DoctorCheck& c : checks) {
    all = all && c.ok;
    j.push_back(Json{{"check", c.name}, {"ok", c.ok}, {"detail", c.detail}});
    if (!json) std::cout << (c.ok ? "ok    " : "FAIL  ") << c.name << ": " << c.detail << "\n";
  }
  if (json) std::cout << Json{{"host", s.host}, {"ok", all}, {"checks", j}}.dump(2) << "\n";
  return all ? 0 : 1;
}

// doctor: the search modes (the row's route), or with a host whether it is wired up.
int RunDoctor(const Row& row, const Opts& o, const std::string& server, bool json) {
  if (o.host.empty()) {
    const int rc = RunRoute(row, o, server, json);
    // This user's service (docs/operations.md), whether or not the server answered: it is what
    // starts one after a reboot. Informational: its absence is not a failure. --json prints the
    // server's answer only.
    if (!json) std::cout << "user service: " << DescribeUserService(ProbeUserService()) << "\n";
    return rc;
  }
  SetupOptions s;
  s.host = o.host;
  s.project = o.project;
  s.user = o.user;
  s.server = server;
  s.scope = o.scope;
  return HostDoctor(s, json);
}

constexpr const char* kScopeHelp = "scope id (scp_…) or key (e.g. project:orders-importer)";

OptionSpec Scope() {
  return Opt("--scope,-s,--scope-id", kScopeHelp, &Opts::scope)
      .Required()
      .Via(ScopeArg, "scope_id", Stage::kScope);
}

OptionSpec Limit(const char* help) {
  return Opt("--limit", help, &Opts::limit).To("limit", Send::kIfPositive);
}

OptionSpec Cursor() {
  return Opt("--cursor", "next_cursor from the previous page", &Opts::cursor).To("cursor");
}

OptionSpec Citation(const char* help) {
  return Opt("citation", help, &Opts::citation)
      .Required()
      .Via(Parsed<CitationArgument>, "citation");
}

// docs/expiry.md: when the entry stops being valid (leaves search and is retired).
OptionSpec ValidUntil() {
  return Opt("--valid-until",
             "valid until: a duration (14d, 12h, 30m), a UTC date (2027-01-31) or date-time, or "
             "never; default: the kind's expiry setting",
             &Opts::valid_until)
      .To("valid_until");
}

OptionSpec Text(const char* name, const char* help, const char* to) {
  return Opt(name, help, &Opts::text).Via(EntryTextArg, to, Stage::kInput);
}

OptionSpec MinRevision() {
  return Opt("--min-revision", "answer only from this revision or later (read-your-writes)",
             &Opts::min_revision)
      .To("min_revision");
}

// Every write says who made it and asks why it changed (or did not).
Json WriteConstants() { return {{"actor", "cli"}, {"explain", true}}; }

// The client subcommands, in the order their help lists them.
const std::vector<Row>& ClientRows() {
  static const std::vector<Row> rows = {
      {"scope", "create or list scopes"},
      {"scope create",
       "create a scope (idempotent by key)",
       {Opt("key", "scope key, e.g. project:orders-importer", &Opts::text).Required().To("key")},
       {"POST", "/v1/scopes"},
       FormatScope},
      {"scope settings",
       "show or change the write gates of a scope (reconcile, require_evidence, expiry)",
       {Opt("--scope,-s", kScopeHelp, &Opts::scope).Required(),
        Opt("--set", "NAME=VALUE, e.g. reconcile=reject (repeatable)", &Opts::settings)
            .OneValue()
            .Via(SetSettingsArg),
        Opt("--clear", "NAME: back to the server's default (repeatable)", &Opts::clear)
            .OneValue()
            .Via(ClearSettingsArg)},
       {"GET", "/v1/scopes/SCOPE/settings"},
       FormatScopeSettings,
       Json::object(),
       RunScopeSettings},
      {"scope list",
       "list scopes",
       {Limit("items per page (1-1000, default 100)"), Cursor()},
       {"GET", "/v1/scopes"},
       FormatScopes},
      {"remember",
       "keep a new entry",
       {Scope(),
        Opt("--kind,-k", "fact, preference, decision, constraint, working_note, …", &Opts::kind)
            .Required()
            .To("kind"),
        Text("text", "the entry text, or - to read standard input", "text"),
        Opt("--file", "read the text from a file", &Opts::file),
        Opt("--reason", "why this is kept", &Opts::reason).To("reason"),
        Opt("--expected-revision", "fail with a conflict unless the memory is at this revision",
            &Opts::expected_revision)
            .To("expected_revision"),
        Opt("--evidence", "what it stands on: a URL, a source id or a citation (repeatable)",
            &Opts::evidence)
            .OneValue()
            .To("evidence"),
        ValidUntil()},
       {"POST", "/v1/memory/remember"},
       FormatWrite,
       WriteConstants()},
      {"revise",
       "write the next version of an entry",
       {Scope(), Citation("the entry's current citation"),
        Text("text", "the new text, or - to read standard input", "text"),
        Opt("--file", "read the text from a file", &Opts::file),
        Opt("--kind,-k", "change the kind", &Opts::kind).To("kind"),
        Opt("--reason", "why it changed", &Opts::reason).To("reason"),
        Opt("--evidence", "evidence to add: a URL, a source id or a citation (repeatable)",
            &Opts::evidence)
            .OneValue()
            .To("evidence"),
        ValidUntil()},
       {"POST", "/v1/memory/entries/revise"},
       FormatWrite,
       WriteConstants()},
      {"retire",
       "retire an entry (its history stays readable)",
       {Scope(), Citation("the entry's current citation"),
        Opt("--reason", "why it no longer holds", &Opts::reason).To("reason")},
       {"POST", "/v1/memory/entries/retire"},
       FormatWrite,
       WriteConstants()},
      {"entries",
       "list the entries at the head or a revision",
       {Scope(),
        Opt("--include-inactive", "also list retired entries", &Opts::include_inactive)
            .To("include_inactive"),
        Opt("--revision", "list the manifest at this revision", &Opts::revision).To("revision"),
        MinRevision(), Limit("items per page (1-1000, default 100)"), Cursor()},
       {"GET", "/v1/memory/entries"},
       FormatEntries},
      {"history",
       "the memory's revisions, one revision (--revision) or an entry's versions (--entry)",
       {Scope(), Opt("--revision", "show this revision: changes and manifest", &Opts::revision),
        Opt("--entry", "show every version of this entry", &Opts::entry),
        Limit("items per page (1-1000, default 100)"), Cursor()},
       {"GET", "/v1/memory/revisions"},
       FormatRevisions,
       Json::object(),
       RunHistory},
      {"search",
       "find entries by full-text, vector, graph or hybrid search",
       {Scope(),
        Opt("query", "what to look for, in any language", &Opts::text).Required().To("query"),
        Opt("--mode,-m", "fts, vector, graph, hybrid or auto (default auto)", &Opts::mode)
            .To("mode"),
        Limit("hits to return (1-50, default 10)"),
        Opt("--include-inactive", "also search retired entries", &Opts::include_inactive)
            .To("include_inactive"),
        Opt("--graph-hops", "graph channel: entries linked within this many hops (1-3, default 2)",
            &Opts::graph_hops)
            .To("graph_hops"),
        MinRevision(),
        Opt("--no-feedback",
            "full text: plain BM25, without the expansion from the best hits and their lift "
            "of their neighbours (docs/quality.md)",
            &Opts::no_feedback)
            .To("feedback", Send::kNegated),
        Opt("--rerank", "reorder the best 30 with the configured reranker (rerank_provider)",
            &Opts::rerank)
            .To("rerank")},
       {"POST", "/v1/memory/search"},
       FormatSearch,
       {{"explain", true}}},
      {"doctor",
       "which search modes work, and why not, and whether this user's service is installed; with a "
       "host (claude-code, codex, cursor): is it wired up",
       {Opt("--scope,-s", "also check this scope's vector projection (with a host: its scope)",
            &Opts::scope)
            .To("scope_id"),
        Opt("host", "check a host's setup: claude-code, codex or cursor", &Opts::host),
        Opt("--project", "with a host: the project folder (default: this one)", &Opts::project),
        Opt("--user", "with a host: the user's configuration, not the project's", &Opts::user)},
       {"GET", "/v1/capabilities/search"},
       FormatSearchModes,
       Json::object(),
       RunDoctor},
      {"reindex",
       "complete a scope's vector projection",
       {Scope()},
       {"POST", "/v1/memory/reindex"},
       FormatReindex},
      {"read",
       "read the exact text of any citation ever issued",
       {Scope(), Citation("a citation string")},
       {"POST", "/v1/memory/entries/get"},
       FormatRead,
       {{"explain", true}}},
      {"source", "add or list raw work records (sources)"},
      {"source add",
       "append a source to the scope's log",
       {Scope(), Text("text", "the content, or - to read standard input", "content"),
        Opt("--file", "read the content from a file", &Opts::file),
        Opt("--kind,-k", "what it is: work_log (default), chat, tool_output, …", &Opts::kind)
            .To("kind"),
        Opt("--purpose", "memory (default: extraction reads it) or archive", &Opts::purpose)
            .To("purpose"),
        Opt("--idempotency-key", "a retry with the same key adds nothing", &Opts::idempotency_key)
            .To("idempotency_key"),
        Opt("--metadata", "a JSON object kept with the source", &Opts::metadata)
            .Via(MetadataArg, "metadata", Stage::kInput)},
       {"POST", "/v1/sources"},
       FormatSource,
       {{"kind", "work_log"}}},
      {"source list",
       "list the scope's sources in order",
       {Scope(), Opt("--after", "positions after this one (default 0)", &Opts::after).To("after"),
        Limit("sources per page (1-1000, default 100)")},
       {"GET", "/v1/sources"},
       FormatSources},
      {"flush",
       "extract memory from the next window of sources",
       {Scope(), Opt("--last",
                     "flush nothing; show the scope's last flush that processed a window "
                     "(whoever ran it)",
                     &Opts::last)},
       {"POST", "/v1/memory/flush"},
       FormatFlush,
       {{"explain", true}},
       RunFlush},
      {"prepare",
       "a cited, byte-budgeted context block for a task",
       {Scope(), Opt("query", "what the agent is about to do", &Opts::text).Required().To("query"),
        Opt("--max-bytes", "budget in UTF-8 bytes (512-32768, default 8000)", &Opts::max_bytes)
            .To("max_bytes", Send::kAlways),
        Opt("--mode", "memory search mode: auto (default), fts, vector, graph, hybrid", &Opts::mode)
            .To("mode"),
        Opt("--no-handoff", "leave the latest handoff out", &Opts::no_handoff)
            .To("include_handoff", Send::kNegated),
        MinRevision(),
        Opt("--rerank", "rerank the memory hits with the configured reranker first", &Opts::rerank)
            .To("rerank")},
       {"POST", "/v1/context/prepare"},
       FormatPrepared},
      // The handoff (RFC 0048, docs/handoff.md): prepare a draft from exact evidence, inspect it,
      // finalize, commit by compare-and-set; continue re-checks every cited statement. The JSON
      // each step prints (--json) is what the next one reads (a file, or - for standard input).
      {"handoff", "prepare, commit, continue or read where the work stands"},
      {"handoff prepare",
       "draft a handoff from exact evidence (needs an extraction provider)",
       {Scope(), Opt("objective", "what the work is for", &Opts::text).Required().To("objective"),
        Opt("--cite", "a memory citation the handoff rests on (repeatable)", &Opts::citations)
            .Required()
            .Via(EachParsed<MemoryEvidence>, "evidence"),
        Opt("--max-bytes", "the draft's budget in UTF-8 bytes (512-32768, default 8000)",
            &Opts::max_bytes)
            .To("max_bytes", Send::kAlways)},
       {"POST", "/v1/handoff/prepare"},
       FormatHandoffDraft},
      {"handoff finalize",
       "turn an inspected draft into a prepared handoff",
       {Scope(), JsonFile("draft", "the draft's JSON (a file, or - for standard input)", "draft")},
       {"POST", "/v1/handoff/finalize"},
       FormatPreparedHandoff},
      {"handoff commit",
       "commit a prepared handoff (409 if the handoff moved on)",
       {Scope(),
        JsonFile("prepared", "the prepared handoff's JSON (a file, or - for standard input)",
                 "handoff")},
       {"POST", "/v1/handoff/commit"},
       FormatCommittedHandoff},
      {"handoff continue",
       "the latest handoff, each statement re-checked against the current state",
       {Scope()},
       {"POST", "/v1/handoff/continue"},
       FormatHandoffResolution,
       {{"selection", "latest"}}},
      {"handoff show",
       "the latest handoff (or --revision R)",
       {Scope(), Opt("--revision", "an older revision", &Opts::revision).To("revision")},
       {"GET", "/v1/handoff"},
       FormatHandoff},
      {"handoff history",
       "every handoff revision, newest first",
       {Scope(), Limit("items per page (1-1000, default 100)"), Cursor()},
       {"GET", "/v1/handoff/history"},
       FormatHandoffs},
      // RFC 0072: inventory, model usage and recall tokens of a scope; never creates it.
      {"stats",
       "a scope's inventory, model usage and recall tokens",
       {Opt("--scope,-s,--scope-id", kScopeHelp, &Opts::scope)
            .Required()
            .Via(ScopeArg, "scope_id", Stage::kScope),
        Opt("--period", "today, 7d or 30d (default 30d; UTC days)", &Opts::period).To("period")},
       {"GET", "/v1/stats"},
       FormatStats},
  };
  return rows;
}

}  // namespace

Result<std::string> ReadInput(const std::string& path, size_t max_bytes) {
  if (path == "-") return ReadBoundedFd(0, max_bytes, 0, "standard input");
  return ReadBoundedFile(path, max_bytes, FollowLinks::kYes);
}

// A JSON document given as a file name, or - for standard input.
Result<Json> JsonArgument(const std::string& file) {
  PC_ASSIGN_OR_RETURN(std::string text, ReadInput(file, kMaxInputBytes));
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return InvalidArgument(file + ": " + parsed.status().message());
  return std::move(parsed).value();
}

// A JSON document a step of the handoff printed: a file, or - for standard input.
OptionSpec JsonFile(const char* name, const char* help, const char* to) {
  return Opt(name, help, &Opts::file).Required().Via(Parsed<JsonArgument>, to);
}

OptionSpec ScopeOption() { return Scope(); }

std::vector<ClientCommand> AddClientCommands(CLI::App& app) {
  auto o = std::make_shared<Opts>();
  std::vector<ClientCommand> cmds = AddRows(app, ClientRows(), o);
  for (ClientCommand& c : AddRows(app, ReviewRows(), o)) cmds.push_back(std::move(c));
  for (ClientCommand& c : AddRows(app, WorkRows(), o)) cmds.push_back(std::move(c));
  for (ClientCommand& c : AddRows(app, SkillRows(), o)) cmds.push_back(std::move(c));
  for (ClientCommand& c : AddRows(app, ReportRows(), o)) cmds.push_back(std::move(c));
  return cmds;
}

int ReportError(const Status& s) {
  std::cerr << "error: " << s.message() << " (" << CodeName(s.code()) << ")\n";
  for (const Detail& d : s.details()) {
    std::cerr << "  " << d.key << ": ";
    std::visit([](const auto& v) { std::cerr << v; }, d.value);
    std::cerr << "\n";
  }
  return ExitCodeFor(s.code());
}

}  // namespace pc
