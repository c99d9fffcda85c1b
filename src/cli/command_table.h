// The client subcommands as a table. A row names a subcommand, its help, its options (each saying
// which request field it fills), the /v1 route it calls and how it prints the answer;
// command_table.cc adds the rows to CLI11 and runs the parsed one through CallRoute. A new
// command is a row, plus at most a small printer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cli/commands.h"
#include "common/status.h"
#include "wire/json.h"

namespace CLI {
class App;
}

namespace pc {

// Every option of every client subcommand; only the parsed subcommand's are filled.
struct Opts {
  std::string scope, kind, text, file, reason, citation, cursor, entry, valid_until;
  std::string purpose, idempotency_key, metadata;
  std::vector<std::string> citations, evidence, settings, clear;
  int64_t max_bytes = 8000;
  bool no_handoff = false;
  bool last = false;  // flush --last
  std::optional<int64_t> expected_revision, revision, after, min_revision;
  int limit = 0;
  bool include_inactive = false;
  bool no_feedback = false;
  bool rerank = false;
  std::string mode;
  int graph_hops = 0;  // search: 0 = the server's default
  std::string period;
  std::string host, project;  // doctor HOST
  bool user = false;
  // The review commands (review_commands.cc).
  std::string candidate, status, family, situation, action, outcome, lesson, target, query;
  std::string artifact, date;
  std::vector<std::string> source_refs, artifact_refs;
  std::optional<int64_t> expected_version;
  // The managed Skill commands (review_commands.cc, skill_commands.cc).
  std::string skill_name, description, instructions, instructions_file, origin, destination;
  std::string export_target;
  std::vector<std::string> validation;
  // The Handoff Report catalog commands (report_commands.cc).
  std::string report_project, report_key, title, timezone, locale;
  std::string report_from, report_to, report_format, workspace, source, time_basis, occurred_at;
  bool compare_previous = false, skip_evidence_checks = false;
  std::vector<std::string> labels;
  // The session commands (session_commands.cc): prune, session-stats, setup, hook.
  std::string now, event, token, state_dir;
  std::vector<std::string> transcripts;
  std::string source_id;  // the work commands (work_commands.cc)
  std::optional<double> ttl, hard_clear_ratio;
  std::optional<int64_t> min_chars, keep_turns, context_window, timeout_ms, handoff_wait_ms;
  bool remove = false, no_capture = false;
};

// What a row sends: a GET its query, a POST or PUT its body.
struct Request {
  bool get = false;
  std::map<std::string, std::string> query;
  Json body = Json::object();

  // `key` "a/b" is b inside a in the body; in a query, a value is its text (5, true).
  void Set(const std::string& key, const Json& value);
};

using Field = std::variant<std::string Opts::*, std::vector<std::string> Opts::*, int Opts::*,
                           int64_t Opts::*, std::optional<int64_t> Opts::*,
                           std::optional<double> Opts::*, bool Opts::*>;

// How an option's value goes into the request field it names.
enum class Send {
  kNothing,     // bound only: a converter or the row's own run reads it
  kIfSet,       // a non-empty text or list, a non-zero number, a set flag (a required one: always)
  kIfPositive,  // a number above 0
  kAlways,      // as it is
  kNegated,     // a flag, always, as its opposite (--no-handoff: include_handoff false)
};

struct OptionSpec;
// Puts an option into the request, or says why its value is unusable.
using Convert = Status (*)(const Opts& o, const OptionSpec& spec, Request& request);

// Converters run in stages, each in option order: what reads the input first, then the scope
// check, then the rest (so that of several mistakes, the one reported stays the same).
enum class Stage { kInput, kScope, kRest };

struct OptionSpec {
  const char* names;  // CLI11's: "--scope,-s", or "citation" for a positional
  const char* help;
  Field field;
  bool required = false;
  bool one_value = false;    // a list takes one value per occurrence: positionals stay positional
  const char* to = nullptr;  // the request field it fills (Request::Set), if any
  Send send = Send::kNothing;
  Convert convert = nullptr;
  Stage stage = Stage::kRest;
  const char* excludes = nullptr;  // another option of the row that may not be given with it

  OptionSpec Required() const;
  OptionSpec OneValue() const;
  OptionSpec To(const char* key, Send how = Send::kIfSet) const;
  OptionSpec Via(Convert c, const char* key = nullptr, Stage s = Stage::kRest) const;
  OptionSpec Excludes(const char* other) const;  // both ways, as CLI11 shows it
};

OptionSpec Opt(const char* names, const char* help, Field field);

struct Route {
  const char* method = nullptr;  // GET, POST or PUT
  const char* path = nullptr;
};

using Printer = std::string (*)(const Json&);
struct Row;
// A row whose route depends on its options runs itself (usually RunRoute on a changed copy).
using Run = int (*)(const Row& row, const Opts& o, const std::string& server, bool json);

struct Row {
  const char* path;  // "handoff prepare": `prepare` under the group row `handoff`
  const char* help;
  std::vector<OptionSpec> options = {};
  Route route = {};  // none: a group, which requires one of its subcommands
  Printer print = nullptr;
  Json constants = Json::object();  // fields every request of the row carries, options after
  Run run = nullptr;
};

// Adds the rows' subcommands to `app` in table order (a group before its members), their options
// bound to *o. `rows` must outlive the commands.
std::vector<ClientCommand> AddRows(CLI::App& app, const std::vector<Row>& rows,
                                   const std::shared_ptr<Opts>& o);

// Sends the row's request, built from the parsed options, to `server`; prints the answer with
// the row's printer, or the server's JSON with `json`. Returns the exit code.
int RunRoute(const Row& row, const Opts& o, const std::string& server, bool json);

// The value a text or list option is bound to.
const std::string& TextOf(const Opts& o, const OptionSpec& spec);
const std::vector<std::string>& ListOf(const Opts& o, const OptionSpec& spec);

// A converter of a text option: sends what `parse` makes of it.
template <Result<Json> (*parse)(const std::string&)>
Status Parsed(const Opts& o, const OptionSpec& spec, Request& request) {
  PC_ASSIGN_OR_RETURN(Json value, parse(TextOf(o, spec)));
  request.Set(spec.to, value);
  return Status::Ok();
}

// A converter of a list option: sends what `parse` makes of each value, always (none: []).
template <Result<Json> (*parse)(const std::string&)>
Status EachParsed(const Opts& o, const OptionSpec& spec, Request& request) {
  Json values = Json::array();
  for (const std::string& v : ListOf(o, spec)) {
    PC_ASSIGN_OR_RETURN(Json value, parse(v));
    values.push_back(value);
  }
  request.Set(spec.to, values);
  return Status::Ok();
}

// The review commands' rows (review_commands.cc), after the client's own (commands.cc).
const std::vector<Row>& ReviewRows();
// The work-continuity commands' rows (work_commands.cc).
const std::vector<Row>& WorkRows();
// The Skill commands' rows (skill_commands.cc).
const std::vector<Row>& SkillRows();
// The Handoff Report catalog's rows (report_commands.cc).
const std::vector<Row>& ReportRows();
// Options the tables share (commands.cc): the scope (--scope, -s: its id or key), and a JSON
// document argument (a file, or - for standard input) sent as request field `to`.
OptionSpec ScopeOption();
OptionSpec JsonFile(const char* name, const char* help, const char* to);
Result<Json> JsonArgument(const std::string& file);
// A file's text (a regular file, a link named on the command line followed), or standard
// input's for "-", at most `max_bytes` (common/bounded_read.h: a FIFO or /dev/zero is refused).
Result<std::string> ReadInput(const std::string& path, size_t max_bytes);
// The session commands' rows (session_commands.cc): each runs on this machine (`run`).
const std::vector<Row>& SessionRows();

}  // namespace pc
