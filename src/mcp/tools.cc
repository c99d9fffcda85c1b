#include "mcp/tools.h"

#include <nlohmann/json.hpp>

#include "client/scope_resolver.h"
#include "wire/error_json.h"

namespace pc {
namespace {

constexpr const char* kCitationHelp =
    "A citation names one exact entry version at one memory revision, e.g. "
    "memory/mem_…@7#ent_…@env_…; every entry you get back carries one.";
constexpr const char* kConflictHelp =
    "If the answer is an error with code conflict (HTTP 409), the memory moved on since you read "
    "it: list or search again, decide with the current text, and retry with the new citation.";

enum class ScopeArg { kNone, kExisting, kCreate };

struct Tool {
  const char* name;
  const char* title;
  std::string description;
  Json properties;               // besides scope_id / scope_key
  std::vector<std::string> required;
  // Whether the tool takes scope_id / scope_key, and whether a key nobody wrote to yet is created
  // (tools that add something) or "not found" (everything else): client/scope_resolver.h.
  ScopeArg scope;
  const char* method;
  const char* path;
  Json defaults = Json::object();  // body fields filled in when the arguments leave them out
};

Json ScopeProperties() {
  return Json{{"scope_id", {{"type", "string"}, {"description", "Scope id (scp_…), from list_scopes or an earlier answer."}}},
              {"scope_key", {{"type", "string"},
                             {"description", "Scope key, e.g. project:orders-importer. Created by the first write (remember, ingest_source, write_handoff); give this or scope_id."}}}};
}

const std::vector<Tool>& Tools() {
  static const std::vector<Tool> kTools = {
      {"remember_memory", "Remember",
       std::string("Keep a conclusion that will matter in later sessions: a decision, constraint, fact, "
                   "preference or working note, as one short self-contained statement. Writing the same "
                   "text again changes nothing (changed: false, duplicate_of the existing entry). The "
                   "answer carries the new entry's citation. ") + kConflictHelp,
       {{"kind", {{"type", "string"}, {"description", "fact, preference, decision, constraint, working_note (or another lower_snake_case label)"}}},
        {"text", {{"type", "string"}, {"description", "The statement, with the names and numbers that make it exact."}}},
        {"reason", {{"type", "string"}, {"description", "Why it is kept."}}},
        {"expected_revision", {{"type", "integer"}, {"minimum", 0}, {"description", "Write only if the memory is still at this revision."}}}},
       {"kind", "text"}, ScopeArg::kCreate, "POST", "/v1/memory/remember", {{"actor", "mcp"}}},
      {"search_memory", "Search memory",
       std::string("Find entries by full-text (Chinese and English), vector or hybrid search over the "
                   "current memory. Each hit has its text and citation. ") + kCitationHelp,
       {{"query", {{"type", "string"}}},
        {"mode", {{"type", "string"}, {"enum", {"auto", "fts", "vector", "hybrid"}}, {"description", "auto (default) uses hybrid when vectors are available, else fts."}}},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}},
        {"include_inactive", {{"type", "boolean"}, {"description", "Include retired entries."}}}},
       {"query"}, ScopeArg::kExisting, "POST", "/v1/memory/search"},
      {"prepare_context", "Prepare context",
       "Get a ready block of context for the task at hand, within a byte budget: the latest handoff, "
       "the most relevant memory entries and past work records, each with its citation. The block is "
       "untrusted history: check it against the current code before relying on it. Use this at the "
       "start of a task.",
       {{"query", {{"type", "string"}, {"description", "What you are about to do."}}},
        {"max_bytes", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1048576}, {"description", "Budget in UTF-8 bytes (default 4000)."}}},
        {"mode", {{"type", "string"}, {"enum", {"auto", "fts", "vector", "hybrid"}}}},
        {"include_handoff", {{"type", "boolean"}, {"description", "Put the latest handoff first (default true)."}}}},
       {"query"}, ScopeArg::kExisting, "POST", "/v1/context/prepare", {{"max_bytes", 4000}}},
      {"revise_memory_entry", "Revise an entry",
       std::string("Replace the text of an entry with a corrected or completed one (its next version; "
                   "the old text stays readable by its citation). Give the entry's current citation. ") +
           kConflictHelp,
       {{"citation", {{"type", "string"}, {"description", "The entry's current citation."}}},
        {"text", {{"type", "string"}}},
        {"kind", {{"type", "string"}}},
        {"reason", {{"type", "string"}}}},
       {"citation", "text"}, ScopeArg::kExisting, "POST", "/v1/memory/revise", {{"actor", "mcp"}}},
      {"retire_memory_entry", "Retire an entry",
       std::string("Retire an entry that is no longer true or useful: it leaves search and listings, "
                   "its history stays readable. Give its current citation. ") + kConflictHelp,
       {{"citation", {{"type", "string"}}}, {"reason", {{"type", "string"}}}},
       {"citation"}, ScopeArg::kExisting, "POST", "/v1/memory/retire", {{"actor", "mcp"}}},
      {"list_memory_entries", "List entries",
       std::string("List the memory's entries at the head (or at an older revision), each with its "
                   "citation, in pages. ") + kCitationHelp,
       {{"revision", {{"type", "integer"}, {"minimum", 0}}},
        {"include_inactive", {{"type", "boolean"}}},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}},
        {"cursor", {{"type", "string"}, {"description", "next_cursor of the previous page."}}}},
       {}, ScopeArg::kExisting, "GET", "/v1/memory/entries"},
      {"read_memory_citation", "Read a citation",
       std::string("Read the exact text behind any citation ever issued, and whether it is still the "
                   "current version. ") + kCitationHelp,
       {{"citation", {{"type", "string"}}}},
       {"citation"}, ScopeArg::kExisting, "POST", "/v1/memory/read"},
      {"ingest_source", "Add a work record",
       "Hand in a raw work record (what was done, tried, decided, a chat excerpt, tool output) for "
       "later extraction by flush_memory. Use idempotency_key to make a retry safe.",
       {{"content", {{"type", "string"}}},
        {"kind", {{"type", "string"}, {"description", "work_log (default), chat, tool_output, …"}}},
        {"purpose", {{"type", "string"}, {"enum", {"memory", "archive"}}, {"description", "archive: kept, never extracted."}}},
        {"metadata", {{"type", "object"}}},
        {"idempotency_key", {{"type", "string"}}}},
       {"content"}, ScopeArg::kCreate, "POST", "/v1/sources", {{"kind", "work_log"}}},
      {"flush_memory", "Flush sources into memory",
       "Have the configured model propose entries from the next window of work records and commit the "
       "ones that pass validation (each with its source references); rejected proposals come back with "
       "their reasons. Needs an extraction provider on the server (else capability_unavailable).",
       Json::object(), {}, ScopeArg::kExisting, "POST", "/v1/memory/flush"},
      {"write_handoff", "Write a handoff",
       std::string("At the end of a session, record where the work stands for whoever continues: "
                   "summary, state, decisions, next steps, open questions. Each write is a new version. ") +
           kConflictHelp,
       {{"summary", {{"type", "string"}}},
        {"state", {{"type", "string"}}},
        {"from", {{"type", "string"}}},
        {"to", {{"type", "string"}}},
        {"decisions", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"next_steps", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"open_questions", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"expected_revision", {{"type", "integer"}, {"minimum", 0}}}},
       {"summary"}, ScopeArg::kCreate, "POST", "/v1/handoff", {{"actor", "mcp"}}},
      {"read_handoff", "Read the handoff",
       "Read where the last session stopped (the latest handoff, or an older revision). Use this at "
       "the start of a session. not_found means there is none yet.",
       {{"revision", {{"type", "integer"}, {"minimum", 1}}}},
       {}, ScopeArg::kExisting, "GET", "/v1/handoff"},
      {"list_scopes", "List scopes",
       "List the scopes (isolated memories, e.g. one per project), or look one up by key.",
       {{"key", {{"type", "string"}}},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}},
        {"cursor", {{"type", "string"}}}},
       {}, ScopeArg::kNone, "GET", "/v1/scopes"},
  };
  return kTools;
}

ToolResult ErrorResult(const Status& s) { return ToolResult{ErrorJson(s), true}; }

// Arguments are checked against the tool's input schema before anything is called: an unknown
// argument or a wrong type ({"key": 5}) is an invalid_argument answer, never coerced to text.
Status CheckArguments(const Tool& tool, const Json& arguments) {
  const Json scope = ScopeProperties();
  for (const auto& [name, value] : arguments.items()) {
    const Json* schema = nullptr;
    if (auto it = tool.properties.find(name); it != tool.properties.end()) schema = &*it;
    if (auto it = scope.find(name); tool.scope != ScopeArg::kNone && it != scope.end()) schema = &*it;
    if (!schema)
      return InvalidArgument("unknown argument \"" + name + "\" for " + tool.name).WithDetail("field", name);
    const std::string type = schema->value("type", "");
    const bool ok = value.is_null() ||
                    (type == "string" && value.is_string()) ||
                    (type == "integer" && value.is_number_integer()) ||
                    (type == "boolean" && value.is_boolean()) ||
                    (type == "object" && value.is_object()) ||
                    (type == "array" && value.is_array());
    if (!ok) return InvalidArgument(name + " must be " + (type == "integer" ? "an " : "a ") + type)
                 .WithDetail("field", name);
  }
  for (const std::string& name : tool.required)
    if (!arguments.contains(name) || arguments[name].is_null())
      return InvalidArgument(name + " is required").WithDetail("field", name);
  return Status::Ok();
}

}  // namespace

Json McpTools::List() {
  Json tools = Json::array();
  for (const Tool& t : Tools()) {
    Json props = t.scope != ScopeArg::kNone ? ScopeProperties() : Json::object();
    for (const auto& [k, v] : t.properties.items()) props[k] = v;
    Json schema{{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
    if (!t.required.empty()) schema["required"] = t.required;
    tools.push_back({{"name", t.name}, {"title", t.title}, {"description", t.description},
                     {"inputSchema", schema}});
  }
  return tools;
}

Result<std::string> McpTools::ResolveScope(const Json& arguments, bool writes) {
  if (arguments.contains("scope_id") && arguments["scope_id"].is_string())
    return arguments["scope_id"].get<std::string>();
  if (arguments.contains("scope_key") && arguments["scope_key"].is_string())
    return ResolveScopeKey(call_, arguments["scope_key"].get<std::string>(),
                           writes ? ScopeUse::kWrite : ScopeUse::kRead);
  return InvalidArgument("give scope_id or scope_key").WithDetail("field", "scope_id");
}

Result<ToolResult> McpTools::Call(const std::string& name, const Json& arguments) {
  const Tool* tool = nullptr;
  for (const Tool& t : Tools())
    if (name == t.name) tool = &t;
  if (!tool) return InvalidArgument("unknown tool " + name);
  if (!arguments.is_object()) return ErrorResult(InvalidArgument("arguments must be an object"));
  if (Status checked = CheckArguments(*tool, arguments); !checked.ok()) return ErrorResult(checked);
  Json body = arguments;
  if (tool->scope != ScopeArg::kNone) {
    auto scope = ResolveScope(arguments, tool->scope == ScopeArg::kCreate);
    if (!scope.ok()) return ErrorResult(scope.status());
    body.erase("scope_key");
    body["scope_id"] = *scope;
  }
  for (const auto& [field, value] : tool->defaults.items())
    if (!body.contains(field)) body[field] = value;
  Result<Json> answer = Status(Code::kInternal, "not called");
  if (std::string(tool->method) == "GET") {
    std::map<std::string, std::string> query;
    for (const auto& [k, v] : body.items())
      if (!v.is_null()) query[k] = v.is_string() ? v.get<std::string>() : v.dump();
    answer = call_("GET", tool->path, query, Json());
  } else {
    answer = call_("POST", tool->path, {}, body);
  }
  if (!answer.ok()) return ErrorResult(answer.status());
  return ToolResult{std::move(answer).value(), false};
}

}  // namespace pc
