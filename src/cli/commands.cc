#include "cli/commands.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/format.h"
#include "client/api_client.h"
#include "common/json_parse.h"
#include "hooks/doctor.h"
#include "wire/error_map.h"

namespace pc {
namespace {

// Options shared by the subcommands; each subcommand binds the ones it uses.
struct Opts {
  std::string scope, kind, text, file, reason, citation, cursor, entry;
  std::string purpose, idempotency_key, metadata;
  std::string from, to, state;
  std::vector<std::string> citations, evidence, settings, clear;
  int64_t max_bytes = 8000;
  bool no_handoff = false;
  bool last = false;  // flush --last
  std::optional<int64_t> expected_revision, revision, after, min_revision;
  int limit = 0;
  bool include_inactive = false;
  bool feedback = false;
  bool rerank = false;
  std::string mode;
  int graph_hops = 0;  // search: 0 = the server's default
  std::string period;
  std::string host, project;  // doctor HOST
  bool user = false;
};

int Fail(const Status& s) { return ReportError(s); }

int Print(const Result<Json>& r, bool json, std::string (*format)(const Json&)) {
  if (!r.ok()) return Fail(r.status());
  std::cout << (json ? r->dump(2) + "\n" : format(*r));
  return 0;
}

// A JSON document given as a file name, or - for standard input.
Result<Json> JsonArgument(const std::string& file) {
  std::string text;
  if (file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) return InvalidArgument("cannot read " + file);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return InvalidArgument(file + ": " + parsed.status().message());
  return std::move(parsed).value();
}

// A citation argument: its string form as it is, or the JSON object an answer printed.
Result<Json> CitationArgument(const std::string& arg) {
  if (arg.empty() || arg[0] != '{') return Json(arg);
  auto parsed = ParseJson(arg);
  if (!parsed.ok()) return InvalidArgument("citation: " + parsed.status().message());
  return std::move(parsed).value();
}

// The text of an entry: the argument, "-" for standard input, or --file.
Result<std::string> EntryText(const Opts& o) {
  if (!o.file.empty()) {
    std::ifstream in(o.file, std::ios::binary);
    if (!in) return InvalidArgument("cannot read " + o.file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  if (o.text == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  if (o.text.empty())
    return InvalidArgument("give the text as an argument, - for stdin, or --file");
  return o.text;
}

// --scope is the request's scope_id as it is: a caller-chosen name (project:orders-importer) or a
// server id (scp_…). A write to a name nobody used creates the scope; a read of one finds nothing.
Result<std::string> ResolveScope(ApiClient&, const std::string& scope, bool) {
  if (scope.empty())
    return InvalidArgument("give --scope (a name such as project:orders, or scp_…)");
  return scope;
}

std::map<std::string, std::string> PageQuery(const std::string& scope_id, const Opts& o) {
  std::map<std::string, std::string> q{{"scope_id", scope_id}};
  if (o.limit > 0) q["limit"] = std::to_string(o.limit);
  if (!o.cursor.empty()) q["cursor"] = o.cursor;
  return q;
}

void AddScopeOption(CLI::App* sub, Opts& o) {
  sub->add_option("--scope,-s", o.scope, "scope id (scp_…) or key (e.g. project:orders-importer)")
      ->required();
}

void AddPageOptions(CLI::App* sub, Opts& o) {
  sub->add_option("--limit", o.limit, "items per page (1-1000, default 100)");
  sub->add_option("--cursor", o.cursor, "next_cursor from the previous page");
}

// The parsed options and the commands registered so far.
struct Registry {
  explicit Registry(CLI::App& a) : app(a) {}
  CLI::App& app;
  std::shared_ptr<Opts> o = std::make_shared<Opts>();
  std::vector<ClientCommand> cmds;

  void Add(CLI::App* sub, std::function<int(ApiClient&, bool)> fn) {
    cmds.push_back({sub, [fn](const std::string& server, bool json) {
                      ApiClient api(server);
                      return fn(api, json);
                    }});
  }
  // A command on a scope that must exist: --scope is resolved (never created) before `fn` runs.
  void Scoped(CLI::App* sub, std::function<int(ApiClient&, const std::string& scope_id, bool)> fn) {
    Add(sub, [o = o, fn](ApiClient& api, bool json) {
      auto scope_id = ResolveScope(api, o->scope, false);
      if (!scope_id.ok()) return Fail(scope_id.status());
      return fn(api, *scope_id, json);
    });
  }
};

// scope create, scope list
void AddScopeCommands(Registry& r) {
  CLI::App& app = r.app;
  std::shared_ptr<Opts> o = r.o;
  CLI::App* scope = app.add_subcommand("scope", "create or list scopes");
  scope->require_subcommand(1);
  CLI::App* scope_create = scope->add_subcommand("create", "create a scope (idempotent by key)");
  scope_create->add_option("key", o->text, "scope key, e.g. project:orders-importer")->required();
  r.Add(scope_create, [o](ApiClient& api, bool json) {
    return Print(api.Post("/v1/scopes", Json{{"key", o->text}}), json, FormatScope);
  });
  CLI::App* scope_settings = scope->add_subcommand(
      "settings", "show or change the write gates of a scope (reconcile, require_evidence)");
  AddScopeOption(scope_settings, *o);
  scope_settings->add_option("--set", o->settings, "NAME=VALUE, e.g. reconcile=reject (repeatable)")
      ->allow_extra_args(false);
  scope_settings->add_option("--clear", o->clear, "NAME: back to the server's default (repeatable)")
      ->allow_extra_args(false);
  r.Add(scope_settings, [o](ApiClient& api, bool json) {
    std::string escaped;  // the scope as one path segment
    for (unsigned char c : o->scope) {
      static const char* kHex = "0123456789ABCDEF";
      if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':') {
        escaped.push_back(static_cast<char>(c));
      } else {
        escaped += '%';
        escaped += kHex[c >> 4];
        escaped += kHex[c & 15];
      }
    }
    const std::string path = "/v1/scopes/" + escaped + "/settings";
    Result<Json> answer = Status(Code::kInternal, "not called");
    if (o->settings.empty() && o->clear.empty()) {
      answer = api.Get(path);
    } else {
      Json body = Json::object();
      for (const std::string& s : o->settings) {
        const size_t eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
          return Fail(InvalidArgument("--set takes NAME=VALUE, got \"" + s + "\""));
        body[s.substr(0, eq)] = s.substr(eq + 1);
      }
      for (const std::string& c : o->clear) body[c] = nullptr;
      answer = api.Put(path, body);
    }
    return Print(answer, json, [](const Json& v) {
      std::string out = "scope " + v.value("scope_id", "") + "\n";
      for (const auto& [name, value] : v["effective"].items())
        out += "  " + name + " = " + value.get<std::string>() +
               (v["overrides"].contains(name) ? "  (this scope)" : "  (server default)") + "\n";
      return out;
    });
  });
  CLI::App* scope_list = scope->add_subcommand("list", "list scopes");
  AddPageOptions(scope_list, *o);
  r.Add(scope_list, [o](ApiClient& api, bool json) {
    std::map<std::string, std::string> q;
    if (o->limit > 0) q["limit"] = std::to_string(o->limit);
    if (!o->cursor.empty()) q["cursor"] = o->cursor;
    auto format = [](const Json& page) {
      std::string out;
      for (const Json& s : page["scopes"]) out += FormatScope(s);
      if (page["next_cursor"].is_string())
        out += "(more: --cursor " + page["next_cursor"].get<std::string>() + ")\n";
      return out;
    };
    Result<Json> r = api.Get("/v1/scopes", q);
    if (!r.ok()) return Fail(r.status());
    std::cout << (json ? r->dump(2) + "\n" : format(*r));
    return 0;
  });
}

// remember, revise, retire
void AddWriteCommands(Registry& r) {
  CLI::App& app = r.app;
  std::shared_ptr<Opts> o = r.o;
  CLI::App* remember = app.add_subcommand("remember", "keep a new entry");
  AddScopeOption(remember, *o);
  remember
      ->add_option("--kind,-k", o->kind, "fact, preference, decision, constraint, working_note, …")
      ->required();
  remember->add_option("text", o->text, "the entry text, or - to read standard input");
  remember->add_option("--file", o->file, "read the text from a file");
  remember->add_option("--reason", o->reason, "why this is kept");
  remember->add_option("--expected-revision", o->expected_revision,
                       "fail with a conflict unless the memory is at this revision");
  remember
      ->add_option("--evidence", o->evidence,
                   "what it stands on: a URL, a source id or a citation (repeatable)")
      ->allow_extra_args(false);
  r.Add(remember, [o](ApiClient& api, bool json) {
    auto text = EntryText(*o);
    if (!text.ok()) return Fail(text.status());
    auto scope_id = ResolveScope(api, o->scope, true);
    if (!scope_id.ok()) return Fail(scope_id.status());
    Json body{{"scope_id", *scope_id},
              {"kind", o->kind},
              {"text", *text},
              {"actor", "cli"},
              {"explain", true}};
    if (!o->reason.empty()) body["reason"] = o->reason;
    if (o->expected_revision) body["expected_revision"] = *o->expected_revision;
    if (!o->evidence.empty()) body["evidence"] = o->evidence;
    return Print(api.Post("/v1/memory/remember", body), json, FormatWrite);
  });

  CLI::App* revise = app.add_subcommand("revise", "write the next version of an entry");
  AddScopeOption(revise, *o);
  revise->add_option("citation", o->citation, "the entry's current citation")->required();
  revise->add_option("text", o->text, "the new text, or - to read standard input");
  revise->add_option("--file", o->file, "read the text from a file");
  revise->add_option("--kind,-k", o->kind, "change the kind");
  revise->add_option("--reason", o->reason, "why it changed");
  revise
      ->add_option("--evidence", o->evidence,
                   "evidence to add: a URL, a source id or a citation (repeatable)")
      ->allow_extra_args(false);
  r.Add(revise, [o](ApiClient& api, bool json) {
    auto text = EntryText(*o);
    if (!text.ok()) return Fail(text.status());
    auto scope_id = ResolveScope(api, o->scope, false);
    if (!scope_id.ok()) return Fail(scope_id.status());
    auto cite = CitationArgument(o->citation);
    if (!cite.ok()) return Fail(cite.status());
    Json body{{"scope_id", *scope_id},
              {"citation", *cite},
              {"text", *text},
              {"actor", "cli"},
              {"explain", true}};
    if (!o->kind.empty()) body["kind"] = o->kind;
    if (!o->reason.empty()) body["reason"] = o->reason;
    if (!o->evidence.empty()) body["evidence"] = o->evidence;
    return Print(api.Post("/v1/memory/entries/revise", body), json, FormatWrite);
  });

  CLI::App* retire = app.add_subcommand("retire", "retire an entry (its history stays readable)");
  AddScopeOption(retire, *o);
  retire->add_option("citation", o->citation, "the entry's current citation")->required();
  retire->add_option("--reason", o->reason, "why it no longer holds");
  r.Scoped(retire, [o](ApiClient& api, const std::string& scope_id, bool json) {
    auto cite = CitationArgument(o->citation);
    if (!cite.ok()) return Fail(cite.status());
    Json body{{"scope_id", scope_id}, {"citation", *cite}, {"actor", "cli"}, {"explain", true}};
    if (!o->reason.empty()) body["reason"] = o->reason;
    return Print(api.Post("/v1/memory/entries/retire", body), json, FormatWrite);
  });
}

// entries, history, search, doctor, reindex, read
int SearchDoctor(ApiClient& api, const Opts& opts, bool json);
int HostDoctor(const SetupOptions& s, bool json);

void AddReadCommands(Registry& r) {
  CLI::App& app = r.app;
  std::shared_ptr<Opts> o = r.o;
  CLI::App* entries = app.add_subcommand("entries", "list the entries at the head or a revision");
  AddScopeOption(entries, *o);
  entries->add_flag("--include-inactive", o->include_inactive, "also list retired entries");
  entries->add_option("--revision", o->revision, "list the manifest at this revision");
  entries->add_option("--min-revision", o->min_revision,
                      "answer only from this revision or later (read-your-writes)");
  AddPageOptions(entries, *o);
  r.Scoped(entries, [o](ApiClient& api, const std::string& scope_id, bool json) {
    auto q = PageQuery(scope_id, *o);
    if (o->include_inactive) q["include_inactive"] = "true";
    if (o->revision) q["revision"] = std::to_string(*o->revision);
    if (o->min_revision) q["min_revision"] = std::to_string(*o->min_revision);
    return Print(api.Get("/v1/memory/entries", q), json, FormatEntries);
  });

  CLI::App* history = app.add_subcommand(
      "history",
      "the memory's revisions, one revision (--revision) or an entry's versions (--entry)");
  AddScopeOption(history, *o);
  history->add_option("--revision", o->revision, "show this revision: changes and manifest");
  history->add_option("--entry", o->entry, "show every version of this entry");
  AddPageOptions(history, *o);
  r.Scoped(history, [o](ApiClient& api, const std::string& scope_id, bool json) {
    auto q = PageQuery(scope_id, *o);
    if (!o->entry.empty())
      return Print(api.Get("/v1/memory/entries/" + o->entry + "/versions", q), json,
                   FormatVersions);
    if (o->revision)
      return Print(api.Get("/v1/memory/revisions/" + std::to_string(*o->revision), q), json,
                   FormatRevision);
    return Print(api.Get("/v1/memory/revisions", q), json, FormatRevisions);
  });

  CLI::App* search =
      app.add_subcommand("search", "find entries by full-text, vector, graph or hybrid search");
  AddScopeOption(search, *o);
  search->add_option("query", o->text, "what to look for, in any language")->required();
  search->add_option("--mode,-m", o->mode, "fts, vector, graph, hybrid or auto (default auto)");
  search->add_option("--limit", o->limit, "hits to return (1-50, default 10)");
  search->add_flag("--include-inactive", o->include_inactive, "also search retired entries");
  search->add_option("--graph-hops", o->graph_hops,
                     "graph channel: entries linked within this many hops (1-3, default 2)");
  search->add_option("--min-revision", o->min_revision,
                     "answer only from this revision or later (read-your-writes)");
  search->add_flag("--feedback", o->feedback,
                   "full text: expand the query from its best hits and let them lift their "
                   "neighbours (docs/quality.md)");
  search->add_flag("--rerank", o->rerank,
                   "reorder the best 30 with the configured reranker (rerank_provider)");
  r.Scoped(search, [o](ApiClient& api, const std::string& scope_id, bool json) {
    Json body{{"scope_id", scope_id}, {"query", o->text}, {"explain", true}};
    if (!o->mode.empty()) body["mode"] = o->mode;
    if (o->limit > 0) body["limit"] = o->limit;
    if (o->include_inactive) body["include_inactive"] = true;
    if (o->min_revision) body["min_revision"] = *o->min_revision;
    if (o->graph_hops != 0) body["graph_hops"] = o->graph_hops;
    if (o->feedback) body["feedback"] = true;
    if (o->rerank) body["rerank"] = true;
    return Print(api.Post("/v1/memory/search", body), json, FormatSearch);
  });

  CLI::App* doctor = app.add_subcommand("doctor",
                                        "which search modes work, and why not; with a host "
                                        "(claude-code, codex, cursor): is it wired up");
  doctor->add_option("--scope,-s", o->scope,
                     "also check this scope's vector projection (with a host: its scope)");
  doctor->add_option("host", o->host, "check a host's setup: claude-code, codex or cursor");
  doctor->add_option("--project", o->project,
                     "with a host: the project folder (default: this one)");
  doctor->add_flag("--user", o->user, "with a host: the user's configuration, not the project's");
  r.cmds.push_back({doctor, [o](const std::string& server, bool json) {
                      if (o->host.empty()) {
                        ApiClient api(server);
                        return SearchDoctor(api, *o, json);
                      }
                      SetupOptions s;
                      s.host = o->host;
                      s.project = o->project;
                      s.user = o->user;
                      s.server = server;
                      s.scope = o->scope;
                      return HostDoctor(s, json);
                    }});
}

int SearchDoctor(ApiClient& api, const Opts& opts, bool json) {
  const Opts* o = &opts;
  {
    std::map<std::string, std::string> q;
    if (!o->scope.empty()) {
      auto scope_id = ResolveScope(api, o->scope, false);
      if (!scope_id.ok()) return Fail(scope_id.status());
      q["scope_id"] = *scope_id;
    }
    auto format = [](const Json& r) {
      std::string out;
      for (const auto& [mode, c] : r["modes"].items())
        out += mode + ": " +
               (c["available"].get<bool>() ? "available"
                                           : "unavailable — " + c["reason"].get<std::string>()) +
               "\n";
      return out;
    };
    Result<Json> r = api.Get("/v1/capabilities/search", q);
    if (!r.ok()) return Fail(r.status());
    std::cout << (json ? r->dump(2) + "\n" : format(*r));
    return 0;
  }
}

int HostDoctor(const SetupOptions& s, bool json) {
  if (s.host != "claude-code" && s.host != "codex" && s.host != "cursor")
    return Fail(InvalidArgument("the host must be claude-code, codex or cursor"));
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

void AddMoreReadCommands(Registry& r) {
  CLI::App& app = r.app;
  std::shared_ptr<Opts> o = r.o;

  CLI::App* reindex = app.add_subcommand("reindex", "complete a scope's vector projection");
  AddScopeOption(reindex, *o);
  r.Scoped(reindex, [o](ApiClient& api, const std::string& scope_id, bool json) {
    Result<Json> r = api.Post("/v1/memory/reindex", Json{{"scope_id", scope_id}});
    if (!r.ok()) return Fail(r.status());
    std::cout << (json ? r->dump(2) + "\n"
                       : "embedded " + std::to_string((*r)["embedded"].get<int64_t>()) +
                             " entries; " + std::to_string((*r)["missing"].get<int64_t>()) +
                             " still missing\n");
    return 0;
  });

  CLI::App* read = app.add_subcommand("read", "read the exact text of any citation ever issued");
  AddScopeOption(read, *o);
  read->add_option("citation", o->citation, "a citation string")->required();
  r.Scoped(read, [o](ApiClient& api, const std::string& scope_id, bool json) {
    auto cite = CitationArgument(o->citation);
    if (!cite.ok()) return Fail(cite.status());
    return Print(api.Post("/v1/memory/entries/get",
                          Json{{"scope_id", scope_id}, {"citation", *cite}, {"explain", true}}),
                 json, FormatRead);
  });
}

// source add, source list, flush
void AddSourceCommands(Registry& r) {
  CLI::App& app = r.app;
  std::shared_ptr<Opts> o = r.o;
  CLI::App* source = app.add_subcommand("source", "add or list raw work records (sources)");
  source->require_subcommand(1);
  CLI::App* source_add = source->add_subcommand("add", "append a source to the scope's log");
  AddScopeOption(source_add, *o);
  source_add->add_option("text", o->text, "the content, or - to read standard input");
  source_add->add_option("--file", o->file, "read the content from a file");
  source_add->add_option("--kind,-k", o->kind,
                         "what it is: work_log (default), chat, tool_output, …");
  source_add->add_option("--purpose", o->purpose,
                         "memory (default: extraction reads it) or archive");
  source_add->add_option("--idempotency-key", o->idempotency_key,
                         "a retry with the same key adds nothing");
  source_add->add_option("--metadata", o->metadata, "a JSON object kept with the source");
  r.Add(source_add, [o](ApiClient& api, bool json) {
    auto text = EntryText(*o);
    if (!text.ok()) return Fail(text.status());
    Json body{{"kind", o->kind.empty() ? "work_log" : o->kind}, {"content", *text}};
    if (!o->purpose.empty()) body["purpose"] = o->purpose;
    if (!o->idempotency_key.empty()) body["idempotency_key"] = o->idempotency_key;
    if (!o->metadata.empty()) {
      Result<Json> parsed = ParseJson(o->metadata);
      if (!parsed.ok()) return Fail(InvalidArgument("--metadata: " + parsed.status().message()));
      Json metadata = std::move(parsed).value();
      if (!metadata.is_object()) return Fail(InvalidArgument("--metadata must be a JSON object"));
      body["metadata"] = metadata;
    }
    auto scope_id = ResolveScope(api, o->scope, true);
    if (!scope_id.ok()) return Fail(scope_id.status());
    body["scope_id"] = *scope_id;
    return Print(api.Post("/v1/sources", body), json, FormatSource);
  });
  CLI::App* source_list = source->add_subcommand("list", "list the scope's sources in order");
  AddScopeOption(source_list, *o);
  source_list->add_option("--after", o->after, "positions after this one (default 0)");
  source_list->add_option("--limit", o->limit, "sources per page (1-1000, default 100)");
  r.Scoped(source_list, [o](ApiClient& api, const std::string& scope_id, bool json) {
    std::map<std::string, std::string> q{{"scope_id", scope_id}};
    if (o->after) q["after"] = std::to_string(*o->after);
    if (o->limit > 0) q["limit"] = std::to_string(o->limit);
    return Print(api.Get("/v1/sources", q), json, FormatSources);
  });

  CLI::App* flush = app.add_subcommand("flush", "extract memory from the next window of sources");
  AddScopeOption(flush, *o);
  flush->add_flag(
      "--last", o->last,
      "flush nothing; show the scope's last flush that processed a window (whoever ran it)");
  r.Scoped(flush, [o](ApiClient& api, const std::string& scope_id, bool json) {
    if (o->last)
      return Print(api.Get("/v1/memory/flush/last", {{"scope_id", scope_id}}), json,
                   FormatLastFlush);
    return Print(api.Post("/v1/memory/flush", Json{{"scope_id", scope_id}, {"explain", true}}),
                 json, FormatFlush);
  });
}

// prepare, handoff prepare / finalize / commit / continue / show / history
void AddContextCommands(Registry& r) {
  CLI::App& app = r.app;
  std::shared_ptr<Opts> o = r.o;
  CLI::App* prepare =
      app.add_subcommand("prepare", "a cited, byte-budgeted context block for a task");
  AddScopeOption(prepare, *o);
  prepare->add_option("query", o->text, "what the agent is about to do")->required();
  prepare->add_option("--max-bytes", o->max_bytes,
                      "budget in UTF-8 bytes (512-32768, default 8000)");
  prepare->add_option("--mode", o->mode,
                      "memory search mode: auto (default), fts, vector, graph, hybrid");
  prepare->add_flag("--no-handoff", o->no_handoff, "leave the latest handoff out");
  prepare->add_option("--min-revision", o->min_revision,
                      "answer only from this revision or later (read-your-writes)");
  prepare->add_flag("--rerank", o->rerank,
                    "rerank the memory hits with the configured reranker first");
  r.Scoped(prepare, [o](ApiClient& api, const std::string& scope_id, bool json) {
    Json body{{"scope_id", scope_id},
              {"query", o->text},
              {"max_bytes", o->max_bytes},
              {"include_handoff", !o->no_handoff}};
    if (!o->mode.empty()) body["mode"] = o->mode;
    if (o->min_revision) body["min_revision"] = *o->min_revision;
    if (o->rerank) body["rerank"] = true;
    return Print(api.Post("/v1/context/prepare", body), json, FormatPrepared);
  });

  // The handoff (RFC 0048, docs/handoff.md): prepare a draft from exact evidence, inspect it,
  // finalize, commit by compare-and-set; continue re-checks every cited statement. The JSON each
  // step prints (--json) is what the next one reads (a file, or - for standard input).
  CLI::App* handoff =
      app.add_subcommand("handoff", "prepare, commit, continue or read where the work stands");
  handoff->require_subcommand(1);
  CLI::App* handoff_prepare = handoff->add_subcommand(
      "prepare", "draft a handoff from exact evidence (needs an extraction provider)");
  AddScopeOption(handoff_prepare, *o);
  handoff_prepare->add_option("objective", o->text, "what the work is for")->required();
  handoff_prepare
      ->add_option("--cite", o->citations, "a memory citation the handoff rests on (repeatable)")
      ->required();
  handoff_prepare->add_option("--max-bytes", o->max_bytes,
                              "the draft's budget in UTF-8 bytes (512-32768, default 8000)");
  r.Scoped(handoff_prepare, [o](ApiClient& api, const std::string& scope_id, bool json) {
    Json evidence = Json::array();
    for (const std::string& c : o->citations) {
      auto cite = CitationArgument(c);
      if (!cite.ok()) return Fail(cite.status());
      evidence.push_back(Json{{"kind", "memory"}, {"memory_citation", *cite}});
    }
    Json body{{"scope_id", scope_id},
              {"objective", o->text},
              {"evidence", evidence},
              {"max_bytes", o->max_bytes}};
    return Print(api.Post("/v1/handoff/prepare", body), json, FormatHandoffDraft);
  });
  CLI::App* handoff_finalize =
      handoff->add_subcommand("finalize", "turn an inspected draft into a prepared handoff");
  AddScopeOption(handoff_finalize, *o);
  handoff_finalize
      ->add_option("draft", o->file, "the draft's JSON (a file, or - for standard input)")
      ->required();
  r.Scoped(handoff_finalize, [o](ApiClient& api, const std::string& scope_id, bool json) {
    auto draft = JsonArgument(o->file);
    if (!draft.ok()) return Fail(draft.status());
    return Print(api.Post("/v1/handoff/finalize", Json{{"scope_id", scope_id}, {"draft", *draft}}),
                 json, FormatPreparedHandoff);
  });
  CLI::App* handoff_commit =
      handoff->add_subcommand("commit", "commit a prepared handoff (409 if the handoff moved on)");
  AddScopeOption(handoff_commit, *o);
  handoff_commit
      ->add_option("prepared", o->file,
                   "the prepared handoff's JSON (a file, or - for standard input)")
      ->required();
  r.Scoped(handoff_commit, [o](ApiClient& api, const std::string& scope_id, bool json) {
    auto prepared = JsonArgument(o->file);
    if (!prepared.ok()) return Fail(prepared.status());
    return Print(
        api.Post("/v1/handoff/commit", Json{{"scope_id", scope_id}, {"handoff", *prepared}}), json,
        FormatCommittedHandoff);
  });
  CLI::App* handoff_continue = handoff->add_subcommand(
      "continue", "the latest handoff, each statement re-checked against the current state");
  AddScopeOption(handoff_continue, *o);
  r.Scoped(handoff_continue, [o](ApiClient& api, const std::string& scope_id, bool json) {
    return Print(
        api.Post("/v1/handoff/continue", Json{{"scope_id", scope_id}, {"selection", "latest"}}),
        json, FormatHandoffResolution);
  });
  CLI::App* handoff_show = handoff->add_subcommand("show", "the latest handoff (or --revision R)");
  AddScopeOption(handoff_show, *o);
  handoff_show->add_option("--revision", o->revision, "an older revision");
  r.Scoped(handoff_show, [o](ApiClient& api, const std::string& scope_id, bool json) {
    std::map<std::string, std::string> q{{"scope_id", scope_id}};
    if (o->revision) q["revision"] = std::to_string(*o->revision);
    return Print(api.Get("/v1/handoff", q), json, FormatHandoff);
  });
  CLI::App* handoff_history =
      handoff->add_subcommand("history", "every handoff revision, newest first");
  AddScopeOption(handoff_history, *o);
  AddPageOptions(handoff_history, *o);
  r.Scoped(handoff_history, [o](ApiClient& api, const std::string& scope_id, bool json) {
    return Print(api.Get("/v1/handoff/history", PageQuery(scope_id, *o)), json, FormatHandoffs);
  });
}

// stats (RFC 0072): inventory, model usage and recall tokens of a scope; never creates it.
void AddStatsCommand(Registry& r) {
  auto& o = r.o;
  CLI::App* stats =
      r.app.add_subcommand("stats", "a scope's inventory, model usage and recall tokens");
  stats
      ->add_option("--scope,-s,--scope-id", o->scope,
                   "scope id (scp_…) or key (e.g. project:orders-importer)")
      ->required();
  stats->add_option("--period", o->period, "today, 7d or 30d (default 30d; UTC days)");
  r.Scoped(stats, [o](ApiClient& api, const std::string& scope_id, bool json) {
    std::map<std::string, std::string> q{{"scope_id", scope_id}};
    if (!o->period.empty()) q["period"] = o->period;
    return Print(api.Get("/v1/stats", q), json, FormatStats);
  });
}

}  // namespace

std::vector<ClientCommand> AddClientCommands(CLI::App& app) {
  Registry r(app);
  AddScopeCommands(r);
  AddWriteCommands(r);
  AddReadCommands(r);
  AddMoreReadCommands(r);
  AddSourceCommands(r);
  AddContextCommands(r);
  AddStatsCommand(r);
  for (ClientCommand& c : AddReviewCommands(app)) r.cmds.push_back(std::move(c));
  return std::move(r.cmds);
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
