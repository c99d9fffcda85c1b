// The review commands (RFC 0050, docs/review.md), as the spec's CLI names them:
//   candidate list | show | approve | reject | revise experience | revise skill
//   experience propose | generate | get | search
//   skill propose | generate | show (managed Skills; skill export and external in
//   skill_commands.cc)
// Evidence is given as repeatable --source-ref content/ID and --artifact-ref FAMILY/ID@REVISION;
// --target FAMILY/ID@REVISION is added to the artifact evidence, as the spec asks.
#include <charconv>
#include <nlohmann/json.hpp>

#include "cli/command_table.h"
#include "wire/json.h"

namespace pc {
namespace {

// FAMILY/ID@REVISION as an ArtifactReference.
Result<Json> ArtifactRefArg(const std::string& arg, const std::string& option) {
  const size_t slash = arg.find('/'), at = arg.rfind('@');
  int64_t revision = 0;
  if (slash == std::string::npos || at == std::string::npos || at < slash + 2 || slash == 0 ||
      std::from_chars(arg.data() + at + 1, arg.data() + arg.size(), revision).ptr !=
          arg.data() + arg.size() ||
      at + 1 == arg.size())
    return InvalidArgument(option + " must be FAMILY/ID@REVISION, e.g. experience/exp_…@1 (got \"" +
                           arg + "\")");
  return Json{{"family", arg.substr(0, slash)},
              {"artifact_id", arg.substr(slash + 1, at - slash - 1)},
              {"revision", revision}};
}

// TYPE/ID as a SourceReference.
Result<Json> SourceRefArg(const std::string& arg) {
  const size_t slash = arg.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == arg.size())
    return InvalidArgument("--source-ref must be TYPE/ID, e.g. content/turn-42 (got \"" + arg +
                           "\")");
  return Json{{"name", arg.substr(0, slash)}, {"source_id", arg.substr(slash + 1)}};
}

std::string RefText(const Json& r) {
  if (!r.is_object()) return "-";
  return r.value("family", "") + "/" + r.value("artifact_id", "") + "@" +
         std::to_string(r.value("revision", 0));
}

std::string FormatProposal(const Json& p) {
  if (p.contains("op"))  // a memory candidate: the operation a flush proposed
    return "  " + p.value("op", "") + " [" + p.value("kind", "") + "] " + p.value("text", "") +
           (p.contains("target_entry") ? "\n  revises " + p["target_entry"].value("entry_id", "") +
                                             "@" + p["target_entry"].value("entry_version_id", "")
                                       : std::string()) +
           "\n";
  if (p.contains("instructions")) {  // a managed Skill
    std::string out = "  name:        " + p.value("name", "") +
                      "\n  description: " + p.value("description", "") + "\n  instructions:\n";
    const std::string text = p.value("instructions", "");
    size_t at = 0;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      out += "    " + text.substr(at, nl - at) + "\n";
      at = nl + 1;
    }
    out += "  validation:\n";
    for (const Json& v : p.value("validation", Json::array()))
      out += "    - " + (v.is_string() ? v.get<std::string>() : v.dump()) + "\n";
    return out;
  }
  return "  situation: " + p.value("situation", "") + "\n  action:    " + p.value("action", "") +
         "\n  outcome:   " + p.value("outcome", "") + "\n  lesson:    " + p.value("lesson", "") +
         "\n";
}

std::string FormatEvidence(const Json& c) {
  std::string out = "  evidence:";
  for (const Json& s : c.value("source_refs", Json::array()))
    out += " source:" + s.value("name", "") + "/" + s.value("source_id", "");
  for (const Json& a : c.value("artifact_refs", Json::array())) out += " " + RefText(a);
  return out + "\n";
}

// One candidate (untrusted content: shown, never interpreted).
std::string FormatCandidate(const Json& c) {
  std::string out = c.value("candidate_id", "") + "@" + std::to_string(c.value("version", 0)) +
                    "  " + c.value("family", "") + "  " + c.value("status", "") + "\n";
  out += FormatProposal(c.value("proposal", Json::object())) + FormatEvidence(c);
  if (c.contains("target") && !c["target"].is_null())
    out += "  target: " + RefText(c["target"]) + "\n";
  if (c.contains("reason") && c["reason"].is_string())
    out += "  reason: " + c["reason"].get<std::string>() + "\n";
  if (c.contains("result_artifact") && !c["result_artifact"].is_null())
    out += "  approved as " + RefText(c["result_artifact"]) + "\n";
  if (c.contains("decision_reason") && c["decision_reason"].is_string())
    out += "  rejected: " + c["decision_reason"].get<std::string>() + "\n";
  return out;
}

std::string FormatPage(const Json& page) {
  std::string out;
  const Json& items = page.value("candidates", Json::array());
  if (items.empty()) out = "no candidates\n";
  for (const Json& c : items) out += FormatCandidate(c);
  if (page.contains("next_cursor") && page["next_cursor"].is_string())
    out += "more: --cursor " + page["next_cursor"].get<std::string>() + "\n";
  return out;
}

std::string FormatArtifactJson(const Json& e) {
  return RefText(e.value("artifact", Json())) + "\n" +
         FormatProposal(e.value("content", Json::object())) + FormatEvidence(e);
}

std::string FormatExperience(const Json& e) {
  std::string out =
      RefText(e.value("artifact", Json())) +
      (e.contains("score") ? "  score " + std::to_string(e["score"].get<double>()) : "") + "\n";
  return out + FormatProposal(e.value("content", Json::object())) + FormatEvidence(e);
}

std::string FormatExperiences(const Json& j) {
  std::string out;
  const Json& items = j.value("experiences", Json::array());
  if (items.empty()) out = "no approved Experience matches\n";
  for (const Json& e : items) out += FormatExperience(e);
  return out;
}

std::string FormatReviewRun(const Json& r) {
  const std::string date = r["date"].get<std::string>();
  if (r["already_reviewed"].get<bool>())
    return date + " was already reviewed (up to source " + r["cursor"].dump() + "); nothing done\n";
  if (r["sources_reviewed"].get<int64_t>() == 0 && r["retire_candidates"].empty())
    return date + ": no new sources to review\n";
  std::string out = date + ": reviewed " + r["sources_reviewed"].dump() + " sources (up to " +
                    r["cursor"].dump() + ")\n";
  for (const char* key : {"experience_candidates", "retire_candidates"})
    for (const Json& c : r[key])
      out += std::string("  ") + (key[0] == 'e' ? "experience candidate " : "retire candidate ") +
             c.get<std::string>() + "\n";
  if (!r["handoff"].is_null())
    out += "  tomorrow note in handoff revision " + r["handoff"]["revision"].dump() + "\n";
  for (const Json& x : r["rejected"])
    out += "  not usable: " + x["reason"].get<std::string>() + "\n";
  out += "review them with: powercontext candidate list --scope SCOPE [--family memory]\n";
  return out;
}

// A generation's answer: the pending candidate, or that the evidence shows no lesson.
std::string FormatGenerated(const Json& r) {
  if (r.value("status", "") != "pending" || !r.contains("candidate") ||
      !r.at("candidate").is_object())
    return "no_op: the model found nothing to propose in this evidence; nothing was proposed\n";
  return FormatCandidate(r.at("candidate"));
}

Result<Json> ArtifactRefOption(const std::string& arg) {
  return ArtifactRefArg(arg, "--artifact-ref");
}

Result<Json> ArtifactPositional(const std::string& arg) { return ArtifactRefArg(arg, "artifact"); }

// --target, which the artifact evidence lists too (after --artifact-ref has filled it).
Status TargetArg(const Opts& o, const OptionSpec& spec, Request& r) {
  if (TextOf(o, spec).empty()) return Status::Ok();
  PC_ASSIGN_OR_RETURN(Json target, ArtifactRefArg(TextOf(o, spec), "--target"));
  r.Set(spec.to, target);
  bool listed = false;
  for (const Json& a : r.body["artifact_refs"]) listed = listed || a == target;
  if (!listed) r.body["artifact_refs"].push_back(target);
  return Status::Ok();
}

OptionSpec ScopeId() {
  return Opt("--scope,-s,--scope-id", "scope id (scp_…) or key (e.g. project:orders-importer)",
             &Opts::scope)
      .Required()
      .To("scope_id");
}

OptionSpec ReviewedVersion() {
  return Opt("--expected-version", "the version you reviewed", &Opts::expected_version)
      .Required()
      .To("expected_version");
}

OptionSpec CandidateId() {
  return Opt("candidate_id", "cand_…", &Opts::candidate).Required().To("candidate_id");
}

// Exact evidence, and what the proposal replaces.
std::vector<OptionSpec> EvidenceOptions() {
  // One value per occurrence: a positional CANDIDATE_ID after them stays positional.
  return {Opt("--source-ref", "exact source evidence TYPE/ID, e.g. content/turn-42 (repeatable)",
              &Opts::source_refs)
              .OneValue()
              .Via(EachParsed<SourceRefArg>, "source_refs"),
          Opt("--artifact-ref", "exact artifact evidence FAMILY/ID@REVISION (repeatable)",
              &Opts::artifact_refs)
              .OneValue()
              .Via(EachParsed<ArtifactRefOption>, "artifact_refs"),
          Opt("--target", "the head FAMILY/ID@REVISION this replaces (experience/… or skill/…)",
              &Opts::target)
              .Via(TargetArg, "target"),
          Opt("--reason", "why (shown to the reviewer)", &Opts::reason).To("reason")};
}

// An Experience proposal {situation, action, outcome, lesson} with its evidence.
std::vector<OptionSpec> ProposalOptions() {
  std::vector<OptionSpec> options = {
      Opt("--situation", "when this applies", &Opts::situation).Required().To("proposal/situation"),
      Opt("--action", "what was done", &Opts::action).Required().To("proposal/action"),
      Opt("--outcome", "what happened", &Opts::outcome).Required().To("proposal/outcome"),
      Opt("--lesson", "what to do next time", &Opts::lesson).Required().To("proposal/lesson")};
  for (OptionSpec& e : EvidenceOptions()) options.push_back(e);
  return options;
}

// --instructions or --instructions-file (exactly one) as proposal.instructions.
Status InstructionsArg(const Opts& o, const OptionSpec& spec, Request& r) {
  if (!o.instructions.empty() && !o.instructions_file.empty())
    return InvalidArgument("give --instructions or --instructions-file, not both");
  if (o.instructions.empty() && o.instructions_file.empty())
    return InvalidArgument(
        "the instructions are required: --instructions TEXT or "
        "--instructions-file FILE (- for standard input)");
  if (!o.instructions.empty()) {
    r.Set(spec.to, o.instructions);
    return Status::Ok();
  }
  PC_ASSIGN_OR_RETURN(std::string text, ReadInput(o.instructions_file, 256 * 1024));
  r.Set(spec.to, text);
  return Status::Ok();
}

// A managed Skill proposal {name, description, instructions, validation} with its evidence.
std::vector<OptionSpec> SkillProposalOptions() {
  std::vector<OptionSpec> options = {
      Opt("--name", "the Skill's name, one line (e.g. csv-currency-validation)", &Opts::skill_name)
          .Required()
          .To("proposal/name"),
      Opt("--description", "when to use it and what it produces, one line", &Opts::description)
          .Required()
          .To("proposal/description"),
      Opt("--instructions", "the instructions an agent follows", &Opts::instructions),
      Opt("--instructions-file", "read the instructions from a file (- for standard input)",
          &Opts::instructions_file)
          .Via(InstructionsArg, "proposal/instructions"),
      Opt("--validation", "an observable check of a successful use, one line (repeatable)",
          &Opts::validation)
          .OneValue()
          .Required()
          .To("proposal/validation")};
  for (OptionSpec& e : EvidenceOptions()) options.push_back(e);
  return options;
}

// SKILL_ID with --revision N as the exact ArtifactReference skill/SKILL_ID@N.
Status SkillArtifactArg(const Opts& o, const OptionSpec& spec, Request& r) {
  if (!o.revision || *o.revision < 1)
    return InvalidArgument("--revision must be the approved revision to read (1 or more)");
  r.Set(spec.to, Json{{"family", "skill"}, {"artifact_id", o.artifact}, {"revision", *o.revision}});
  return Status::Ok();
}

std::vector<OptionSpec> Concat(std::initializer_list<std::vector<OptionSpec>> parts) {
  std::vector<OptionSpec> out;
  for (const std::vector<OptionSpec>& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// The options of a decision on a reviewed candidate: `options` between the version and the id.
std::vector<OptionSpec> Decision(const std::vector<OptionSpec>& options) {
  return Concat({{ScopeId(), ReviewedVersion()}, options, {CandidateId()}});
}

}  // namespace

const std::vector<Row>& ReviewRows() {
  static const std::vector<Row> rows = {
      {"candidate", "the review inbox: list, show, approve, reject or revise candidates"},
      {"candidate list",
       "candidates waiting for review (or --status approved|rejected)",
       {ScopeId(),
        Opt("--status", "pending (default), approved or rejected", &Opts::status).To("status"),
        Opt("--family",
            "experience or skill (memory: what a flush proposed under extraction_review = review)",
            &Opts::family)
            .To("family"),
        Opt("--limit", "items per page (1-100, default 50)", &Opts::limit).To("limit"),
        Opt("--cursor", "next_cursor from the previous page", &Opts::cursor).To("cursor")},
       {"POST", "/v1/artifact-candidates/list"},
       FormatPage},
      {"candidate show",
       "one candidate's current version",
       {ScopeId(), CandidateId()},
       {"POST", "/v1/artifact-candidates/get"},
       FormatCandidate},
      {"candidate approve",
       "commit exactly the reviewed version as an artifact revision",
       Decision({}),
       {"POST", "/v1/artifact-candidates/approve"},
       FormatCandidate},
      {"candidate reject",
       "reject the reviewed version, with a reason",
       Decision({Opt("--reason", "why it is rejected", &Opts::reason).Required().To("reason")}),
       {"POST", "/v1/artifact-candidates/reject"},
       FormatCandidate},
      {"candidate revise", "replace a pending proposal (the next version)"},
      {"candidate revise experience",
       "a complete replacement Experience proposal",
       Decision(ProposalOptions()),
       {"POST", "/v1/artifact-candidates/revise"},
       FormatCandidate},
      {"candidate revise memory",
       "a flush's proposed entry with a corrected kind and text",
       Decision({Opt("--kind", "the entry's kind", &Opts::kind).Required().To("proposal/kind"),
                 Opt("--text", "the entry's text", &Opts::text).Required().To("proposal/text"),
                 Opt("--reason", "why (shown to the next reviewer)", &Opts::reason).To("reason")}),
       {"POST", "/v1/artifact-candidates/revise"},
       FormatCandidate,
       {{"source_refs", Json::array()}, {"artifact_refs", Json::array()}}},
      {"candidate revise skill",
       "a complete replacement managed Skill proposal",
       Decision(SkillProposalOptions()),
       {"POST", "/v1/artifact-candidates/revise"},
       FormatCandidate},
      {"experience", "propose, generate, read or search reviewed Experience"},
      {"experience propose",
       "a pending Experience candidate with its exact evidence",
       Concat({{ScopeId()}, ProposalOptions()}),
       {"POST", "/v1/experience/propose"},
       FormatCandidate},
      {"experience generate",
       "the server's model drafts a pending Experience candidate from exactly this evidence",
       Concat({{ScopeId()}, EvidenceOptions()}),
       {"POST", "/v1/experience/generate"},
       FormatGenerated},
      {"experience get",
       "an approved Experience revision, exactly",
       {ScopeId(), Opt("artifact", "experience/exp_…@REVISION", &Opts::artifact)
                       .Required()
                       .Via(Parsed<ArtifactPositional>, "artifact")},
       {"POST", "/v1/experience/get"},
       FormatExperience},
      {"experience search",
       "approved Experience matching a query, best first",
       {ScopeId(),
        Opt("query", "what the agent is about to do", &Opts::query).Required().To("query"),
        Opt("--limit", "at most this many (1-100, default 10)", &Opts::limit).To("limit")},
       {"POST", "/v1/experience/search"},
       FormatExperiences},
      {"skill",
       "managed Skills (propose, generate, show, export) and external ones (docs/skills.md)"},
      {"skill propose",
       "a pending managed Skill candidate with its exact evidence (no model)",
       Concat({{ScopeId()}, SkillProposalOptions()}),
       {"POST", "/v1/skill/propose"},
       FormatCandidate},
      {"skill generate",
       "the server's model drafts a pending managed Skill candidate from exactly this evidence",
       Concat({{ScopeId(),
                Opt("--origin", "experience, source or usage: the provenance it is drafted from",
                    &Opts::origin)
                    .Required()
                    .To("origin")},
               EvidenceOptions()}),
       {"POST", "/v1/skill/generate"},
       FormatGenerated},
      {"skill show",
       "an approved managed Skill revision, exactly",
       {ScopeId(), Opt("--revision", "the revision", &Opts::revision).Required(),
        Opt("skill_id", "skl_…", &Opts::artifact).Required().Via(SkillArtifactArg, "artifact")},
       {"POST", "/v1/skill/get"},
       FormatArtifactJson},
      {"review", "the daily review (docs/review.md)"},
      {"review run",
       "review a scope's new sources of a day now: experience and retire candidates, a tomorrow "
       "note",
       {ScopeId(),
        Opt("--date", "the day, YYYY-MM-DD in the server's time zone (default today)", &Opts::date)
            .To("date")},
       {"POST", "/v1/review/run"},
       FormatReviewRun},
  };
  return rows;
}

}  // namespace pc
