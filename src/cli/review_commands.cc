// The review commands (RFC 0050, docs/review.md), as the spec's CLI names them:
//   candidate list | show | approve | reject | revise experience
//   experience propose | generate | get | search
// Evidence is given as repeatable --source-ref content/ID and --artifact-ref FAMILY/ID@REVISION;
// --target FAMILY/ID@REVISION is added to the artifact evidence, as the spec asks.
#include <CLI/CLI.hpp>
#include <charconv>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "client/api_client.h"
#include "wire/json.h"

namespace pc {
namespace {

struct ReviewOpts {
  std::string scope, candidate, status, family, cursor, reason;
  std::string situation, action, outcome, lesson, target, query, artifact, date;
  std::vector<std::string> source_refs, artifact_refs;
  std::optional<int64_t> expected_version;
  int limit = 0;
};

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

// source_refs, artifact_refs, target, reason of a propose, revise or generate.
Result<Json> EvidenceBody(const ReviewOpts& o) {
  Json body{{"source_refs", Json::array()}, {"artifact_refs", Json::array()}};
  for (const std::string& s : o.source_refs) {
    PC_ASSIGN_OR_RETURN(Json ref, SourceRefArg(s));
    body["source_refs"].push_back(ref);
  }
  for (const std::string& a : o.artifact_refs) {
    PC_ASSIGN_OR_RETURN(Json ref, ArtifactRefArg(a, "--artifact-ref"));
    body["artifact_refs"].push_back(ref);
  }
  if (!o.target.empty()) {
    PC_ASSIGN_OR_RETURN(Json target, ArtifactRefArg(o.target, "--target"));
    body["target"] = target;
    bool listed = false;
    for (const Json& a : body["artifact_refs"]) listed = listed || a == target;
    if (!listed) body["artifact_refs"].push_back(target);
  }
  if (!o.reason.empty()) body["reason"] = o.reason;
  return body;
}

// The same with the proposal {situation, action, outcome, lesson}.
Result<Json> ProposalBody(const ReviewOpts& o) {
  PC_ASSIGN_OR_RETURN(Json body, EvidenceBody(o));
  body["proposal"] = {{"situation", o.situation},
                      {"action", o.action},
                      {"outcome", o.outcome},
                      {"lesson", o.lesson}};
  return body;
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

int Print(const Result<Json>& r, bool json, std::string (*format)(const Json&)) {
  if (!r.ok()) return ReportError(r.status());
  std::cout << (json ? r->dump(2) + "\n" : format(*r));
  return 0;
}

void ScopeOption(CLI::App* sub, ReviewOpts& o) {
  sub->add_option("--scope,-s,--scope-id", o.scope,
                  "scope id (scp_…) or key (e.g. project:orders-importer)")
      ->required();
}

void EvidenceOptions(CLI::App* sub, ReviewOpts& o) {
  // One value per occurrence: a positional CANDIDATE_ID after them stays positional.
  sub->add_option("--source-ref", o.source_refs,
                  "exact source evidence TYPE/ID, e.g. content/turn-42 (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--artifact-ref", o.artifact_refs,
                  "exact artifact evidence FAMILY/ID@REVISION (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--target", o.target, "the Experience head FAMILY/ID@REVISION this replaces");
  sub->add_option("--reason", o.reason, "why (shown to the reviewer)");
}

void ProposalOptions(CLI::App* sub, ReviewOpts& o) {
  sub->add_option("--situation", o.situation, "when this applies")->required();
  sub->add_option("--action", o.action, "what was done")->required();
  sub->add_option("--outcome", o.outcome, "what happened")->required();
  sub->add_option("--lesson", o.lesson, "what to do next time")->required();
  EvidenceOptions(sub, o);
}

// A generation's answer: the pending candidate, or that the evidence shows no lesson.
std::string FormatGenerated(const Json& r) {
  if (r.value("status", "") != "pending" || !r.contains("candidate") ||
      !r.at("candidate").is_object())
    return "no_op: the model found no lesson in this evidence; nothing was proposed\n";
  return FormatCandidate(r.at("candidate"));
}

}  // namespace

std::vector<ClientCommand> AddReviewCommands(CLI::App& app) {
  auto o = std::make_shared<ReviewOpts>();
  std::vector<ClientCommand> cmds;
  auto add = [&cmds](CLI::App* sub, std::function<Result<Json>(ApiClient&)> call,
                     std::string (*format)(const Json&)) {
    cmds.push_back({sub, [call, format](const std::string& server, bool json) {
                      ApiClient api(server);
                      return Print(call(api), json, format);
                    }});
  };

  CLI::App* candidate = app.add_subcommand(
      "candidate", "the review inbox: list, show, approve, reject or revise candidates");
  candidate->require_subcommand(1);
  CLI::App* list = candidate->add_subcommand(
      "list", "candidates waiting for review (or --status approved|rejected)");
  ScopeOption(list, *o);
  list->add_option("--status", o->status, "pending (default), approved or rejected");
  list->add_option(
      "--family", o->family,
      "experience or skill (memory: what a flush proposed under extraction_review = review)");
  list->add_option("--limit", o->limit, "items per page (1-100, default 50)");
  list->add_option("--cursor", o->cursor, "next_cursor from the previous page");
  add(
      list,
      [o](ApiClient& api) {
        Json body{{"scope_id", o->scope}};
        if (!o->status.empty()) body["status"] = o->status;
        if (!o->family.empty()) body["family"] = o->family;
        if (o->limit) body["limit"] = o->limit;
        if (!o->cursor.empty()) body["cursor"] = o->cursor;
        return api.Post("/v1/artifact-candidates/list", body);
      },
      FormatPage);

  CLI::App* show = candidate->add_subcommand("show", "one candidate's current version");
  ScopeOption(show, *o);
  show->add_option("candidate_id", o->candidate, "cand_…")->required();
  add(
      show,
      [o](ApiClient& api) {
        return api.Post("/v1/artifact-candidates/get",
                        Json{{"scope_id", o->scope}, {"candidate_id", o->candidate}});
      },
      FormatCandidate);

  CLI::App* approve = candidate->add_subcommand(
      "approve", "commit exactly the reviewed version as an artifact revision");
  ScopeOption(approve, *o);
  approve->add_option("--expected-version", o->expected_version, "the version you reviewed")
      ->required();
  approve->add_option("candidate_id", o->candidate, "cand_…")->required();
  add(
      approve,
      [o](ApiClient& api) {
        return api.Post("/v1/artifact-candidates/approve",
                        Json{{"scope_id", o->scope},
                             {"candidate_id", o->candidate},
                             {"expected_version", *o->expected_version}});
      },
      FormatCandidate);

  CLI::App* reject =
      candidate->add_subcommand("reject", "reject the reviewed version, with a reason");
  ScopeOption(reject, *o);
  reject->add_option("--expected-version", o->expected_version, "the version you reviewed")
      ->required();
  reject->add_option("--reason", o->reason, "why it is rejected")->required();
  reject->add_option("candidate_id", o->candidate, "cand_…")->required();
  add(
      reject,
      [o](ApiClient& api) {
        return api.Post("/v1/artifact-candidates/reject",
                        Json{{"scope_id", o->scope},
                             {"candidate_id", o->candidate},
                             {"expected_version", *o->expected_version},
                             {"reason", o->reason}});
      },
      FormatCandidate);

  CLI::App* revise =
      candidate->add_subcommand("revise", "replace a pending proposal (the next version)");
  revise->require_subcommand(1);
  CLI::App* revise_exp =
      revise->add_subcommand("experience", "a complete replacement Experience proposal");
  ScopeOption(revise_exp, *o);
  revise_exp->add_option("--expected-version", o->expected_version, "the version you reviewed")
      ->required();
  ProposalOptions(revise_exp, *o);
  revise_exp->add_option("candidate_id", o->candidate, "cand_…")->required();
  add(
      revise_exp,
      [o](ApiClient& api) -> Result<Json> {
        PC_ASSIGN_OR_RETURN(Json body, ProposalBody(*o));
        body["scope_id"] = o->scope;
        body["candidate_id"] = o->candidate;
        body["expected_version"] = *o->expected_version;
        return api.Post("/v1/artifact-candidates/revise", body);
      },
      FormatCandidate);

  CLI::App* revise_mem =
      revise->add_subcommand("memory", "a flush's proposed entry with a corrected kind and text");
  ScopeOption(revise_mem, *o);
  revise_mem->add_option("--expected-version", o->expected_version, "the version you reviewed")
      ->required();
  revise_mem->add_option("--kind", o->situation, "the entry's kind")->required();
  revise_mem->add_option("--text", o->lesson, "the entry's text")->required();
  revise_mem->add_option("--reason", o->reason, "why (shown to the next reviewer)");
  revise_mem->add_option("candidate_id", o->candidate, "cand_…")->required();
  add(
      revise_mem,
      [o](ApiClient& api) {
        Json body{{"scope_id", o->scope},
                  {"candidate_id", o->candidate},
                  {"expected_version", *o->expected_version},
                  {"proposal", {{"kind", o->situation}, {"text", o->lesson}}},
                  {"source_refs", Json::array()},
                  {"artifact_refs", Json::array()}};
        if (!o->reason.empty()) body["reason"] = o->reason;
        return api.Post("/v1/artifact-candidates/revise", body);
      },
      FormatCandidate);

  CLI::App* experience =
      app.add_subcommand("experience", "propose, generate, read or search reviewed Experience");
  experience->require_subcommand(1);
  CLI::App* propose = experience->add_subcommand(
      "propose", "a pending Experience candidate with its exact evidence");
  ScopeOption(propose, *o);
  ProposalOptions(propose, *o);
  add(
      propose,
      [o](ApiClient& api) -> Result<Json> {
        PC_ASSIGN_OR_RETURN(Json body, ProposalBody(*o));
        body["scope_id"] = o->scope;
        return api.Post("/v1/experience/propose", body);
      },
      FormatCandidate);

  CLI::App* generate = experience->add_subcommand(
      "generate",
      "the server's model drafts a pending Experience candidate from exactly this evidence");
  ScopeOption(generate, *o);
  EvidenceOptions(generate, *o);
  add(
      generate,
      [o](ApiClient& api) -> Result<Json> {
        PC_ASSIGN_OR_RETURN(Json body, EvidenceBody(*o));
        body["scope_id"] = o->scope;
        return api.Post("/v1/experience/generate", body);
      },
      FormatGenerated);

  CLI::App* get = experience->add_subcommand("get", "an approved Experience revision, exactly");
  ScopeOption(get, *o);
  get->add_option("artifact", o->artifact, "experience/exp_…@REVISION")->required();
  add(
      get,
      [o](ApiClient& api) -> Result<Json> {
        PC_ASSIGN_OR_RETURN(Json ref, ArtifactRefArg(o->artifact, "artifact"));
        return api.Post("/v1/experience/get", Json{{"scope_id", o->scope}, {"artifact", ref}});
      },
      FormatExperience);

  CLI::App* search =
      experience->add_subcommand("search", "approved Experience matching a query, best first");
  ScopeOption(search, *o);
  search->add_option("query", o->query, "what the agent is about to do")->required();
  search->add_option("--limit", o->limit, "at most this many (1-100, default 10)");
  add(
      search,
      [o](ApiClient& api) {
        Json body{{"scope_id", o->scope}, {"query", o->query}};
        if (o->limit) body["limit"] = o->limit;
        return api.Post("/v1/experience/search", body);
      },
      FormatExperiences);

  CLI::App* review = app.add_subcommand("review", "the daily review (docs/review.md)");
  review->require_subcommand(1);
  CLI::App* run = review->add_subcommand("run",
                                         "review a scope's new sources of a day now: experience "
                                         "and retire candidates, a tomorrow note");
  ScopeOption(run, *o);
  run->add_option("--date", o->date,
                  "the day, YYYY-MM-DD in the server's time zone (default today)");
  add(
      run,
      [o](ApiClient& api) {
        Json body{{"scope_id", o->scope}};
        if (!o->date.empty()) body["date"] = o->date;
        return api.Post("/v1/review/run", body);
      },
      FormatReviewRun);
  return cmds;
}

}  // namespace pc
