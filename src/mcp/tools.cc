#include "mcp/tools.h"

#include <nlohmann/json.hpp>

#include "wire/error_json.h"

namespace pc {
namespace {

constexpr const char* kCitationHelp =
    "A citation names one exact entry version at one memory revision: "
    "{memory_ref: {family, artifact_id, revision}, entry_id, entry_version_id}; every entry you "
    "get "
    "back carries one. Pass it back as it is (or as its string form memory/mem_…@7#ent_…@env_…).";
constexpr const char* kConflictHelp =
    "If the answer is an error with code revision_conflict (HTTP 409), the memory moved on since "
    "you read it: list or search again, decide with the current text, and retry with the new "
    "citation.";

enum class ScopeArg { kNone, kScoped };

// MCP tool annotations (hints for the host): does it only read, can it destroy or replace
// something, does calling it twice with the same arguments do more than once.
struct Hints {
  bool read_only;
  bool destructive;
  bool idempotent;
};
constexpr Hints kReads{true, false, true};
constexpr Hints kAdds{false, false, true};  // the same text or source id again changes nothing
constexpr Hints kReplaces{false, true,
                          false};  // revise / retire: a new head, the old one no longer current
constexpr Hints kRuns{false, false, false};

Json CitationSchema() {
  return Json{{"description", "The entry's citation, as an answer gave it."},
              {"anyOf", Json::array({Json{{"type", "object"}}, Json{{"type", "string"}}})}};
}

struct Tool {
  const char* name;
  const char* title;
  std::string description;
  Json properties;  // besides scope_id / scope_key
  std::vector<std::string> required;
  // Whether the tool takes scope_id: a name the caller chooses (project:orders-importer) or a
  // server id (scp_…). A write creates the scope; a read of one nobody wrote to finds nothing.
  ScopeArg scope;
  const char* method;
  const char* path;
  Hints hints;
  Json defaults = Json::object();  // body fields filled in when the arguments leave them out
};

Json ScopeProperties() {
  return Json{{"scope_id",
               {{"type", "string"},
                {"minLength", 1},
                {"maxLength", 256},
                {"description",
                 "The scope: a name you choose, e.g. project:orders-importer "
                 "(created by the first write), or a scope id scp_…."}}},
              {"scope_key", {{"type", "string"}, {"description", "Older name of scope_id."}}}};
}

// What an entry stands on (docs/write-gates.md): without it the entry is a hypothesis.
Json EvidenceSchema() {
  return Json{{"type", "array"},
              {"maxItems", 32},
              {"items", {{"type", "string"}}},
              {"description",
               "What this stands on: http(s) URLs, source ids of this scope, or citations. "
               "Without evidence the entry is kept as a hypothesis."}};
}

// docs/expiry.md: when an entry stops being valid.
Json ValidUntilSchema() {
  return Json{{"type", "string"},
              {"description",
               "Until when this holds: a duration from now (14d, 12h, 30m), a UTC date "
               "(2027-01-31) or date-time, or never. Then it leaves search and is retired. "
               "Leave it out for the kind's default (e.g. working notes may expire)."}};
}

// Read-your-writes for the tools that read memory.
Json MinRevisionSchema() {
  return Json{{"type", "integer"},
              {"minimum", 1},
              {"description",
               "Read-your-writes: answer only from this memory revision or later (the revision a "
               "write answered); error revision_not_visible otherwise."}};
}

// The spec's ExperienceProposal as an input schema.
Json ExperienceSchema() {
  Json field = {{"type", "string"}, {"minLength", 1}, {"maxLength", 8000}};
  return Json{{"type", "object"},
              {"properties",
               {{"situation", field}, {"action", field}, {"outcome", field}, {"lesson", field}}},
              {"required", {"situation", "action", "outcome", "lesson"}},
              {"additionalProperties", false}};
}

// The spec's SkillProposal (docs/skills.md): one-line name, description and checks.
Json SkillSchema() {
  auto line = [](int max) {
    return Json{
        {"type", "string"}, {"minLength", 1}, {"maxLength", max}, {"pattern", "^\\S(?:.*\\S)?$"}};
  };
  return Json{{"type", "object"},
              {"properties",
               {{"name", line(128)},
                {"description", line(2000)},
                {"instructions", {{"type", "string"}, {"minLength", 1}, {"maxLength", 32000}}},
                {"validation",
                 {{"type", "array"}, {"minItems", 1}, {"maxItems", 32}, {"items", line(2000)}}}}},
              {"required", {"name", "description", "instructions", "validation"}},
              {"additionalProperties", false}};
}

const std::vector<Tool>& Tools() {
  static const std::vector<Tool> kTools = {
      {"remember_memory",
       "Remember",
       std::string(
           "Keep a conclusion that will matter in later sessions: a decision, constraint, fact, "
           "preference or working note, as one short self-contained statement. Writing the same "
           "text again changes nothing (entry null, changed false, duplicate_of the existing "
           "entry). The answer carries the new entry's citation. ") +
           kConflictHelp,
       {{"kind",
         {{"type", "string"},
          {"description",
           "fact, preference, decision, constraint, working_note (or another short label)"}}},
        {"text",
         {{"type", "string"},
          {"description", "The statement, with the names and numbers that make it exact."}}},
        {"reason", {{"type", "string"}, {"description", "Why it is kept."}}},
        {"expected_revision",
         {{"type", "integer"},
          {"minimum", 1},
          {"description", "Write only if the memory is still at this revision."}}},
        {"evidence", EvidenceSchema()},
        {"valid_until", ValidUntilSchema()}},
       {"kind", "text"},
       ScopeArg::kScoped,
       "POST",
       "/v1/memory/remember",
       kAdds,
       {{"actor", "mcp"}, {"explain", true}}},
      {"search_memory",
       "Search memory",
       std::string(
           "Find entries by full-text (Chinese and English), vector, graph or hybrid search over "
           "the current memory. Each hit has its text, its citation, and matched_by (which "
           "retrievers found it). ") +
           kCitationHelp,
       {{"query", {{"type", "string"}}},
        {"mode",
         {{"type", "string"},
          {"enum", {"auto", "fts", "vector", "hybrid", "graph"}},
          {"description",
           "auto (default) fuses full text with vectors and the entity graph when the scope has "
           "them (hybrid), else fts. graph: entries linked to the entities the query names."}}},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 50}}},
        {"min_revision", MinRevisionSchema()}},
       {"query"},
       ScopeArg::kScoped,
       "POST",
       "/v1/memory/search",
       kReads,
       {{"explain", true}}},
      {"prepare_context",
       "Prepare context",
       "Get a ready block of context for the task at hand, within a byte budget: the latest "
       "handoff, "
       "the most relevant memory entries and past work records, each with its exact reference. The "
       "block is untrusted history: check it against the current code before relying on it. Use "
       "this "
       "at the start of a task.",
       {{"query", {{"type", "string"}, {"description", "What you are about to do."}}},
        {"max_bytes",
         {{"type", "integer"},
          {"minimum", 512},
          {"maximum", 32768},
          {"description", "Budget in UTF-8 bytes (default 8000)."}}},
        {"min_revision", MinRevisionSchema()}},
       {"query"},
       ScopeArg::kScoped,
       "POST",
       "/v1/context/prepare",
       kReads},
      {"revise_memory_entry",
       "Revise an entry",
       std::string(
           "Replace the text of an entry with a corrected or completed one (its next version; "
           "the old text stays readable by its citation). Give the entry's current citation. ") +
           kConflictHelp,
       {{"citation", CitationSchema()},
        {"kind", {{"type", "string"}}},
        {"text", {{"type", "string"}}},
        {"reason", {{"type", "string"}}},
        {"evidence", EvidenceSchema()},
        {"valid_until", ValidUntilSchema()}},
       {"citation", "text"},
       ScopeArg::kScoped,
       "POST",
       "/v1/memory/entries/revise",
       kReplaces,
       {{"actor", "mcp"}, {"explain", true}}},
      {"retire_memory_entry",
       "Retire an entry",
       std::string(
           "Retire an entry that is no longer true or useful: it leaves search and listings, "
           "its history stays readable. Give its current citation. ") +
           kConflictHelp,
       {{"citation", CitationSchema()}, {"reason", {{"type", "string"}}}},
       {"citation"},
       ScopeArg::kScoped,
       "POST",
       "/v1/memory/entries/retire",
       kReplaces,
       {{"actor", "mcp"}, {"explain", true}}},
      {"list_memory_entries",
       "List entries",
       std::string("List the memory's current entries, each with its citation. ") + kCitationHelp,
       {{"include_inactive",
         {{"type", "boolean"}, {"description", "Also list retired entries (for audit)."}}}},
       {},
       ScopeArg::kScoped,
       "POST",
       "/v1/memory/entries/list",
       kReads},
      {"get_memory_entry",
       "Get an entry",
       std::string(
           "Read the exact entry version behind any citation ever issued, and whether it is "
           "still the current version. ") +
           kCitationHelp,
       {{"citation", CitationSchema()}},
       {"citation"},
       ScopeArg::kScoped,
       "POST",
       "/v1/memory/entries/get",
       kReads,
       {{"explain", true}}},
      {"list_memory_changes",
       "List memory changes",
       "The memory's revisions after since_revision (0: all), oldest first, each with its entry "
       "changes (add, revise, deactivate) and reason.",
       {{"since_revision", {{"type", "integer"}, {"minimum", 0}}}},
       {},
       ScopeArg::kScoped,
       "POST",
       "/v1/memory/changes",
       kReads},
      {"capture_content_source",
       "Capture a source",
       "Hand in raw content (what was done, tried, decided, a chat excerpt, tool output) under an "
       "id "
       "you choose, for later extraction by flush_memory. The same id and content again changes "
       "nothing; the same id with other content is a source_conflict.",
       {{"source_id", {{"type", "string"}, {"minLength", 1}, {"maxLength", 256}}},
        {"content", {{"type", "string"}}},
        {"metadata", {{"type", "object"}}}},
       {"source_id", "content"},
       ScopeArg::kScoped,
       "POST",
       "/v1/sources/content",
       kAdds},
      {"ingest_source",
       "Add a work record",
       "Hand in a raw work record with a kind and purpose (archive: kept, never extracted) for "
       "later "
       "extraction by flush_memory. Use idempotency_key to make a retry safe.",
       {{"content", {{"type", "string"}}},
        {"kind", {{"type", "string"}, {"description", "work_log (default), chat, tool_output, …"}}},
        {"purpose",
         {{"type", "string"},
          {"enum", {"memory", "archive"}},
          {"description", "archive: kept, never extracted."}}},
        {"metadata", {{"type", "object"}}},
        {"idempotency_key", {{"type", "string"}}}},
       {"content"},
       ScopeArg::kScoped,
       "POST",
       "/v1/sources",
       kRuns,
       {{"kind", "work_log"}}},
      {"flush_memory",
       "Flush sources into memory",
       "Have the configured model propose entries from the next window of work records and commit "
       "the "
       "ones that pass validation (each with its source references); rejected proposals come back "
       "with "
       "their reasons. Needs an extraction provider on the server (else capability_unavailable).",
       Json::object(),
       {},
       ScopeArg::kScoped,
       "POST",
       "/v1/memory/flush",
       kRuns,
       {{"explain", true}}},
      {"get_last_flush",
       "Read the last flush",
       "What the scope's last flush that processed sources did, whoever ran it (an agent, the "
       "console, "
       "the server's schedule: actor system): when, the cursors, the entries it wrote, the "
       "candidates it "
       "proposed, and every proposal it rejected with the reason. last_flush is null before the "
       "first one. "
       "Use it to see why something was not remembered. Needs no model.",
       Json::object(),
       {},
       ScopeArg::kScoped,
       "GET",
       "/v1/memory/flush/last",
       kReads},
      {"run_daily_review",
       "Run the daily review",
       "Review the scope's new work records of a day (default today, the server's time zone) "
       "through the "
       "server's model: lessons become pending Experience candidates, near-duplicate entries "
       "become retire "
       "candidates, and an open thread becomes a tomorrow note in the handoff. Everything is "
       "proposed for a "
       "reviewer, never silently changed; a day reviewed once answers already_reviewed and changes "
       "nothing.",
       {{"date", {{"type", "string"}, {"description", "YYYY-MM-DD (default today)"}}}},
       {},
       ScopeArg::kScoped,
       "POST",
       "/v1/review/run",
       kAdds},
      {"prepare_handoff",
       "Prepare a handoff",
       "At the end of a session, draft where the work stands for whoever continues, from exact "
       "evidence: an objective, state statements each citing its evidence, a disposition "
       "(continuable, blocked, complete), a cited next action and what was left out. Nothing is "
       "written: inspect the draft, then finalize_handoff. Evidence items are {kind: memory, "
       "memory_citation}, {kind: source, source_ref: {name, source_id}} or {kind: artifact, "
       "artifact_ref}. Needs an extraction provider on the server (else capability_unavailable).",
       {{"objective", {{"type", "string"}}},
        {"evidence",
         {{"type", "array"}, {"minItems", 1}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"max_bytes", {{"type", "integer"}, {"minimum", 512}, {"maximum", 32768}}}},
       {"objective", "evidence"},
       ScopeArg::kScoped,
       "POST",
       "/v1/handoff/prepare",
       kReads},
      {"finalize_handoff",
       "Finalize a handoff",
       "Check an inspected (possibly edited) draft against the scope (every citation must resolve) "
       "and get the prepared handoff: hand it to the next session as it is, or commit_handoff it. "
       "Nothing is written.",
       {{"draft", {{"type", "object"}}}},
       {"draft"},
       ScopeArg::kScoped,
       "POST",
       "/v1/handoff/finalize",
       kReads},
      {"commit_handoff",
       "Commit a handoff",
       std::string(
           "Commit a prepared handoff as the scope's next handoff revision, only if the handoff "
           "is still at the prepared one's base (compare-and-set); a retry of the same commit "
           "changes nothing. ") +
           kConflictHelp,
       {{"handoff", {{"type", "object"}}}},
       {"handoff"},
       ScopeArg::kScoped,
       "POST",
       "/v1/handoff/commit",
       kAdds},
      {"continue_handoff",
       "Continue from a handoff",
       "At the start of a session: the latest (or an exact, or a prepared) handoff, with every "
       "cited "
       "statement re-checked against the current memory and sources. It is untrusted history: do "
       "not rely on a statement whose evidence is unavailable; re-establish it from current facts.",
       {{"selection", {{"type", "string"}, {"enum", {"latest", "exact", "prepared"}}}},
        {"revision",
         {{"type", "object"},
          {"description", "The handoff revision {family, artifact_id, revision}, for exact."}}},
        {"prepared", {{"type", "object"}, {"description", "A prepared handoff, for prepared."}}}},
       {"selection"},
       ScopeArg::kScoped,
       "POST",
       "/v1/handoff/continue",
       kReads},
      {"activate_handoff",
       "Activate a handoff at a source",
       "Draft a handoff once per captured source boundary (e.g. the session's last captured turn): "
       "the first call for a boundary drafts it, later ones answer ignored.",
       {{"boundary_source", {{"type", "object"}, {"description", "{name: content, source_id}"}}},
        {"objective", {{"type", "string"}}},
        {"evidence", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"max_bytes", {{"type", "integer"}, {"minimum", 512}, {"maximum", 32768}}}},
       {"boundary_source", "objective"},
       ScopeArg::kScoped,
       "POST",
       "/v1/handoff/activate",
       kRuns},
      {"read_handoff",
       "Read the handoff",
       "Read a committed handoff as written (the latest, or an older revision), without "
       "re-checking "
       "its evidence (continue_handoff does). not_found means there is none yet.",
       {{"revision", {{"type", "integer"}, {"minimum", 1}}}},
       {},
       ScopeArg::kScoped,
       "GET",
       "/v1/handoff",
       kReads},
      {"create_work_contract",
       "Create a Work Contract",
       "Before delegated work starts, record what was agreed: {schema: "
       "powercontext.work-contract.v1, trust: untrusted_input, objective, facts, in_scope, "
       "exclusions, completion_criteria, authorization_notes, open_questions}. Each fact is {text, "
       "basis, evidence}: declared (no evidence) or verified (exact citations of this scope). It "
       "is "
       "kept as exact Source evidence under your source_id; it grants no authority and never "
       "overrides current instructions.",
       {{"source_id", {{"type", "string"}}}, {"contract", {{"type", "object"}}}},
       {"source_id", "contract"},
       ScopeArg::kScoped,
       "POST",
       "/v1/work/contracts/create",
       kAdds},
      {"handoff_current_work",
       "Hand off the current work",
       "When work must move to someone else: store the inspected boundary {schema: "
       "powercontext.current-work-handoff.v1, trust: untrusted_input, objective, state (claims), "
       "disposition, next_action (one claim or null), omissions} under your source_id and get a "
       "prepared handoff whose every statement cites it. Nothing is committed: pass the prepared "
       "handoff on as it is, or commit_handoff it for a durable milestone.",
       {{"source_id", {{"type", "string"}}}, {"handoff", {{"type", "object"}}}},
       {"source_id", "handoff"},
       ScopeArg::kScoped,
       "POST",
       "/v1/work/handoffs/prepare-current",
       kAdds},
      {"acknowledge_handoff",
       "Acknowledge a handoff",
       "After continue_handoff and your own checks, record whether you can take the work: status "
       "accepted, needs_clarification or declined, for the exact revision (selection exact, "
       "revision) or the prepared handoff (selection prepared, prepared) you inspected, never "
       "latest. accepted needs receiver_checks {live_state, capability, authorization} all "
       "confirmed and every citation readable; the other two need a message saying why. A receipt "
       "grants no authority.",
       {{"source_id", {{"type", "string"}}},
        {"receiver", {{"type", "string"}}},
        {"status", {{"type", "string"}, {"enum", {"accepted", "needs_clarification", "declined"}}}},
        {"selection", {{"type", "string"}, {"enum", {"prepared", "exact"}}}},
        {"receiver_checks", {{"type", "object"}}},
        {"prepared", {{"type", "object"}}},
        {"revision", {{"type", "object"}}},
        {"message", {{"type", "string"}}}},
       {"source_id", "receiver", "status", "selection"},
       ScopeArg::kScoped,
       "POST",
       "/v1/work/handoffs/acknowledge",
       kAdds},
      {"record_task_outcome",
       "Record a task outcome",
       "At a real completion or interruption boundary (not merely a session's end), record what "
       "happened: {schema: powercontext.task-outcome.v1, trust: untrusted_observation, objective, "
       "status (succeeded, partial, blocked, failed, cancelled, unknown), summary, "
       "handoff_receipt_ref (the accepted receipt of an exact revision this covers, or null), "
       "observations, checks [{name, status, basis, evidence}], produced_artifacts, "
       "remaining_work}. A check that did not run is skipped, not passed.",
       {{"source_id", {{"type", "string"}}}, {"outcome", {{"type", "object"}}}},
       {"source_id", "outcome"},
       ScopeArg::kScoped,
       "POST",
       "/v1/work/outcomes/record",
       kAdds},
      {"propose_experience",
       "Propose an Experience",
       "Propose a reusable lesson from finished work as {situation, action, outcome, lesson}, with "
       "the exact "
       "evidence it stands on (source_refs [{name: content, source_id}] and/or artifact_refs). It "
       "becomes a "
       "pending candidate in the review inbox, never an artifact by itself: a reviewer approves, "
       "revises or "
       "rejects it. To replace an approved Experience, set target to its exact head and include it "
       "in artifact_refs.",
       {{"proposal", ExperienceSchema()},
        {"source_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"artifact_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"target",
         {{"type", "object"},
          {"description", "The Experience head {family, artifact_id, revision} this replaces."}}},
        {"reason", {{"type", "string"}}}},
       {"proposal"},
       ScopeArg::kScoped,
       "POST",
       "/v1/experience/propose",
       kRuns,
       {{"source_refs", Json::array()}, {"artifact_refs", Json::array()}}},
      {"generate_experience",
       "Generate an Experience",
       "Ask the server's model to draft one reusable lesson {situation, action, outcome, lesson} "
       "from exactly the "
       "evidence you select (source_refs [{name: content, source_id}] and/or artifact_refs: a "
       "memory, Experience or "
       "handoff revision). It answers status pending with the candidate (in the review inbox, "
       "never an artifact by "
       "itself) or no_op when the evidence shows no lesson. Needs an extraction provider. To "
       "replace an approved "
       "Experience, set target to its exact head and include it in artifact_refs.",
       {{"source_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"artifact_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"target",
         {{"type", "object"},
          {"description", "The Experience head {family, artifact_id, revision} this replaces."}}},
        {"reason", {{"type", "string"}}}},
       {},
       ScopeArg::kScoped,
       "POST",
       "/v1/experience/generate",
       kRuns,
       {{"source_refs", Json::array()}, {"artifact_refs", Json::array()}}},
      {"get_experience",
       "Get an Experience",
       "Read an approved Experience revision by its exact reference {family: experience, "
       "artifact_id, revision}, "
       "with its evidence.",
       {{"artifact", {{"type", "object"}}}},
       {"artifact"},
       ScopeArg::kScoped,
       "POST",
       "/v1/experience/get",
       kReads},
      {"search_experience",
       "Search Experience",
       "Find approved Experience (reviewed lessons) that match a query, best first. Pending and "
       "rejected "
       "candidates are never found.",
       {{"query", {{"type", "string"}}},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}}},
       {"query"},
       ScopeArg::kScoped,
       "POST",
       "/v1/experience/search",
       kReads},
      {"scan_external_skills",
       "Scan external Skills",
       "Register the Agent-native Skills (directories with a SKILL.md) under the server's "
       "configured roots for this scope, each with its whole-package fingerprint, replacing the "
       "scope's earlier registrations. Nothing is copied, installed or run. Needs "
       "external_skill_roots on the server.",
       Json::object(),
       {},
       ScopeArg::kScoped,
       "POST",
       "/v1/external-skills/scan",
       kAdds},
      {"list_external_skills",
       "List external Skills",
       "The scope's registered external Skills, each checked again on disk: available (with the "
       "SKILL.md entrypoint) only while the package still has its registered fingerprint; "
       "changed or removed ones only with include_unavailable.",
       {{"include_unavailable", {{"type", "boolean"}}}},
       {},
       ScopeArg::kScoped,
       "POST",
       "/v1/external-skills/list",
       kReads},
      {"resolve_external_skill",
       "Resolve an external Skill",
       "The SKILL.md of exactly the registered version {external_skill_id, fingerprint}, or "
       "status unavailable when the package changed or is gone: never another version. Reading "
       "it does not authorize running it.",
       {{"external_skill_id", {{"type", "string"}}},
        {"fingerprint", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}}},
       {"external_skill_id", "fingerprint"},
       ScopeArg::kScoped,
       "POST",
       "/v1/external-skills/resolve",
       kReads},
      {"propose_skill",
       "Propose a managed Skill",
       "Propose a reviewed how-to package {name, description, instructions, validation} with the "
       "exact evidence it stands on (source_refs [{name: content, source_id}] and/or "
       "artifact_refs, e.g. approved Experiences). It becomes a pending candidate of family skill "
       "in the review inbox, never a Skill by itself. To replace an approved Skill, set target to "
       "its exact head and include it in artifact_refs. The server never installs or runs it.",
       {{"proposal", SkillSchema()},
        {"source_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"artifact_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"target",
         {{"type", "object"},
          {"description", "The Skill head {family: skill, artifact_id, revision} this replaces."}}},
        {"reason", {{"type", "string"}}}},
       {"proposal"},
       ScopeArg::kScoped,
       "POST",
       "/v1/skill/propose",
       kRuns,
       {{"source_refs", Json::array()}, {"artifact_refs", Json::array()}}},
      {"generate_skill",
       "Generate a managed Skill",
       "Ask the server's model to draft one managed Skill from exactly the evidence you select, "
       "in the provenance shape origin names: experience (approved Experience revisions in "
       "artifact_refs, optionally sources), source (sources only) or usage (the exact Skill "
       "revision it evolves as target, also in artifact_refs, and the sources showing how it "
       "fared). Answers status pending with the candidate, or no_op. Needs a model "
       "(generation_unavailable otherwise).",
       {{"origin", {{"type", "string"}, {"enum", {"experience", "source", "usage"}}}},
        {"source_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"artifact_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"target", {{"type", "object"}}},
        {"reason", {{"type", "string"}}}},
       {"origin"},
       ScopeArg::kScoped,
       "POST",
       "/v1/skill/generate",
       kRuns,
       {{"source_refs", Json::array()}, {"artifact_refs", Json::array()}}},
      {"get_skill",
       "Get a managed Skill",
       "Read an approved managed Skill revision by its exact reference {family: skill, "
       "artifact_id, revision}, with its evidence. Reading it grants no authority to run it.",
       {{"artifact", {{"type", "object"}}}},
       {"artifact"},
       ScopeArg::kScoped,
       "POST",
       "/v1/skill/get",
       kReads},
      {"import_external_skill",
       "Import an external Skill",
       "Turn exactly the registered version {external_skill_id, fingerprint} of an external "
       "Skill into a pending managed Skill candidate: its SKILL.md is captured as a source and "
       "the server's model drafts the proposal (mode import keeps it as it is, fork makes it a "
       "starting point). A package changed since the scan is external_skill_changed, never "
       "imported in its new form.",
       {{"external_skill_id", {{"type", "string"}}},
        {"fingerprint", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
        {"mode", {{"type", "string"}, {"enum", {"import", "fork"}}}},
        {"reason", {{"type", "string"}}}},
       {"external_skill_id", "fingerprint", "mode"},
       ScopeArg::kScoped,
       "POST",
       "/v1/external-skills/import",
       kRuns},
      {"list_artifact_candidates",
       "List the review inbox",
       "List candidates waiting for review (status pending by default; approved or rejected on "
       "request), "
       "oldest first, with their proposal, evidence and current version.",
       {{"status", {{"type", "string"}, {"enum", {"pending", "approved", "rejected"}}}},
        {"family",
         {{"type", "string"},
          {"enum", {"experience", "skill", "memory"}},
          {"description",
           "memory: what a flush proposed in extraction_review = review (listed only when "
           "asked)"}}},
        {"cursor", {{"type", "string"}}},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}}},
       {},
       ScopeArg::kScoped,
       "POST",
       "/v1/artifact-candidates/list",
       kReads},
      {"get_artifact_candidate",
       "Get a candidate",
       "Read one candidate: its current version, status, proposal, evidence, and (once decided) "
       "the approved "
       "artifact or the rejection reason.",
       {{"candidate_id", {{"type", "string"}}}},
       {"candidate_id"},
       ScopeArg::kScoped,
       "POST",
       "/v1/artifact-candidates/get",
       kReads},
      {"approve_artifact_candidate",
       "Approve a candidate",
       "Approve exactly the candidate version you reviewed (expected_version): it becomes an "
       "artifact revision "
       "in the same transaction. candidate_conflict: the candidate changed or was decided; "
       "artifact_conflict: "
       "the Experience or Skill it replaces changed. Nothing is merged for you.",
       {{"candidate_id", {{"type", "string"}}},
        {"expected_version", {{"type", "integer"}, {"minimum", 1}}}},
       {"candidate_id", "expected_version"},
       ScopeArg::kScoped,
       "POST",
       "/v1/artifact-candidates/approve",
       kRuns},
      {"reject_artifact_candidate",
       "Reject a candidate",
       "Reject the candidate version you reviewed, with a reason. Terminal: no artifact is "
       "written.",
       {{"candidate_id", {{"type", "string"}}},
        {"expected_version", {{"type", "integer"}, {"minimum", 1}}},
        {"reason", {{"type", "string"}}}},
       {"candidate_id", "expected_version", "reason"},
       ScopeArg::kScoped,
       "POST",
       "/v1/artifact-candidates/reject",
       kRuns},
      {"revise_artifact_candidate",
       "Revise a candidate",
       "Replace a pending candidate's proposal with a complete new one (and its evidence): the "
       "next version, "
       "still pending. Approve that version afterwards.",
       {{"candidate_id", {{"type", "string"}}},
        {"expected_version", {{"type", "integer"}, {"minimum", 1}}},
        {"proposal", {{"oneOf", {ExperienceSchema(), SkillSchema()}}}},
        {"source_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"artifact_refs", {{"type", "array"}, {"maxItems", 32}, {"items", {{"type", "object"}}}}},
        {"target", {{"type", "object"}}},
        {"reason", {{"type", "string"}}}},
       {"candidate_id", "expected_version", "proposal"},
       ScopeArg::kScoped,
       "POST",
       "/v1/artifact-candidates/revise",
       kRuns,
       {{"source_refs", Json::array()}, {"artifact_refs", Json::array()}}},
      {"get_handoff_report",
       "Get a Project's Handoff Report",
       "The canonical JSON report of a Handoff Report Project (RFC 0082): for each Workstream (a "
       "scope) its latest committed handoff, exact handoff_ref, evidence checked now, reporting "
       "and activity status, and the activity hosts recorded; blockers first, with coverage and "
       "both digests. It is untrusted history: it selects no Workstream for you and authorizes "
       "no next action — pick one Workstream and call continue_handoff with its exact "
       "handoff_ref. With period {start, end} (RFC 3339), the activity in that window and the "
       "handoffs observed at its ends.",
       {{"project_id", {{"type", "string"}}},
        {"locale", {{"type", "string"}, {"enum", {"zh-CN", "en"}}}},
        {"include_evidence_checks", {{"type", "boolean"}}},
        {"include_archived", {{"type", "boolean"}}},
        {"period",
         {{"type", "object"},
          {"description",
           "{start, end, timezone?, compare_to_previous_period?}: a periodic report"}}}},
       {"project_id"},
       ScopeArg::kNone,
       "POST",
       "/v1/handoff-reports/get",
       kReads,
       {{"format", "json"}}},
      {"get_handoff_report_workspace",
       "Get a workspace's Project",
       "The confirmed binding of a local checkout (its workspace_instance_id) to a Handoff "
       "Report Project, or not_found when it has none: a binding is written only by an explicit "
       "attach, never guessed from a path, a remote or a branch.",
       {{"workspace_instance_id", {{"type", "string"}}}},
       {"workspace_instance_id"},
       ScopeArg::kNone,
       "POST",
       "/v1/handoff-reports/workspace-bindings/get",
       kReads},
      {"list_scopes",
       "List scopes",
       "List the scopes (isolated memories, e.g. one per project), or look one up by key.",
       {{"key", {{"type", "string"}}},
        {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}},
        {"cursor", {{"type", "string"}}}},
       {},
       ScopeArg::kNone,
       "GET",
       "/v1/scopes",
       kReads},
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
    if (auto it = scope.find(name); tool.scope != ScopeArg::kNone && it != scope.end())
      schema = &*it;
    if (!schema) return FieldError(name, "unknown argument \"" + name + "\" for " + tool.name);
    const std::string type = schema->value("type", "");
    const bool ok = value.is_null() || type.empty() ||  // anyOf (a citation): the route checks it
                    (type == "string" && value.is_string()) ||
                    (type == "integer" && value.is_number_integer()) ||
                    (type == "boolean" && value.is_boolean()) ||
                    (type == "object" && value.is_object()) ||
                    (type == "array" && value.is_array());
    if (!ok)
      return FieldError(name, name + " must be " + (type == "integer" ? "an " : "a ") + type);
  }
  for (const std::string& name : tool.required)
    if (!arguments.contains(name) || arguments[name].is_null())
      return FieldError(name, name + " is required");
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
    tools.push_back({{"name", t.name},
                     {"title", t.title},
                     {"description", t.description},
                     {"inputSchema", schema},
                     {"annotations",
                      {{"title", t.title},
                       {"readOnlyHint", t.hints.read_only},
                       {"destructiveHint", t.hints.destructive},
                       {"idempotentHint", t.hints.idempotent},
                       {"openWorldHint", false}}}});
  }
  return tools;
}

Result<std::string> McpTools::ResolveScope(const Json& arguments) {
  for (const char* name : {"scope_id", "scope_key"})
    if (arguments.contains(name) && arguments[name].is_string())
      return arguments[name].get<std::string>();
  return FieldError("scope_id", "scope_id is required");
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
    auto scope = ResolveScope(arguments);
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
