// The Skill commands of this file (upstream RFC 0051, docs/skills.md): `skill export`, which
// writes an approved managed Skill revision out as a SKILL.md package on this machine, and `skill
// external scan | list | resolve | import`, against a server with external_skill_roots. The
// review-inbox ones (`skill propose | generate | show`) are review_commands.cc's; the `skill`
// group row is theirs too.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command_table.h"
#include "cli/commands.h"
#include "client/api_client.h"
#include "common/clock.h"
#include "hooks/skill_export.h"
#include "wire/json.h"

namespace pc {
namespace {

std::string RegistrationLine(const Json& r) {
  return r.value("external_skill_id", "") + "  " + r.value("name", "") + " — " +
         r.value("description", "") + "\n    " + r.value("locator", "") + "  " +
         r.value("fingerprint", "") + "\n";
}

std::string FormatScan(const Json& j) {
  const Json& regs = j.value("registrations", Json::array());
  std::string out = "registered " + std::to_string(regs.size()) + " skill" +
                    (regs.size() == 1 ? "" : "s") + ", skipped " +
                    std::to_string(j.value("skipped", int64_t{0})) + "\n";
  for (const Json& r : regs) out += RegistrationLine(r);
  return out;
}

std::string FormatResolution(const Json& r) {
  std::string out = r.value("status", "") + "  " + RegistrationLine(r["registration"]);
  if (r.contains("entrypoint") && r["entrypoint"].is_string())
    out += "    entrypoint " + r["entrypoint"].get<std::string>() + "\n";
  return out;
}

std::string FormatSkills(const Json& j) {
  const Json& skills = j.value("skills", Json::array());
  if (skills.empty()) return "no external skills (scan the scope first: skill external scan)\n";
  std::string out;
  for (const Json& s : skills) out += FormatResolution(s);
  return out;
}

std::string FormatImported(const Json& r) {
  if (r.value("status", "") != "pending" || !r.contains("candidate") ||
      !r.at("candidate").is_object())
    return "no_op: the model found no Skill to propose in this package; nothing was proposed\n";
  const Json& c = r.at("candidate");
  return "proposed " + c.value("candidate_id", "") + "@" + std::to_string(c.value("version", 0)) +
         "  " + c["proposal"].value("name", "") +
         "\nreview it with: powercontext candidate show --scope SCOPE " +
         c.value("candidate_id", "") + "\n";
}

// skill export: the exact revision read from the server, then written here (hooks/skill_export.h).
int RunSkillExport(const Row&, const Opts& o, const std::string& server, bool json) {
  if (!o.revision || *o.revision < 1)
    return ReportError(InvalidArgument("--revision must be the approved revision to export"));
  ApiClient api(server);
  Result<Json> skill = api.Post(
      "/v1/skill/get",
      Json{{"scope_id", o.scope},
           {"artifact",
            {{"family", "skill"}, {"artifact_id", o.artifact}, {"revision", *o.revision}}}});
  if (!skill.ok()) return ReportError(skill.status());
  std::string destination = o.destination;
  if (destination.empty()) {
    Result<std::string> d =
        DefaultSkillDestination(o.export_target, (*skill)["content"].value("name", std::string()));
    if (!d.ok()) return ReportError(d.status());
    destination = *d;
  }
  Result<SkillExportResult> out =
      WriteSkillExport(destination, o.export_target, o.scope, *skill, FormatTimestamp(NowMillis()));
  if (!out.ok()) return ReportError(out.status());
  if (json) {
    std::cout << Json{{"directory", out->directory},
                      {"artifact", (*skill)["artifact"]},
                      {"skill_md_sha256", out->skill_md_sha256},
                      {"replaced", out->replaced}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << (out->replaced ? "replaced the earlier export in " : "exported to ")
              << out->directory << ": SKILL.md and " << kSkillExportManifest << " (skill/"
              << o.artifact << "@" << *o.revision << ")\n";
  }
  return 0;
}

}  // namespace

const std::vector<Row>& SkillRows() {
  static const std::vector<Row> rows = {
      {"skill external",
       "the Agent-native Skills (SKILL.md packages) under the server's external_skill_roots"},
      {"skill external scan",
       "register the packages under the server's roots for a scope, each with its fingerprint",
       {ScopeOption()},
       {"POST", "/v1/external-skills/scan"},
       FormatScan},
      {"skill external list",
       "the scope's registered Skills, each checked on disk",
       {ScopeOption(),
        Opt("--all", "show changed or removed packages too (unavailable)", &Opts::include_inactive)
            .To("include_unavailable")},
       {"POST", "/v1/external-skills/list"},
       FormatSkills},
      {"skill external resolve",
       "the SKILL.md of exactly this registered version, or unavailable",
       {ScopeOption(),
        Opt("id", "external:codex:SCOPE/NAME", &Opts::artifact).Required().To("external_skill_id"),
        Opt("fingerprint", "the registered fingerprint (64 hex digits)", &Opts::target)
            .Required()
            .To("fingerprint")},
       {"POST", "/v1/external-skills/resolve"},
       FormatResolution},
      {"skill external import",
       "capture this exact registered version and have the server's model propose a managed Skill "
       "from it",
       {ScopeOption(),
        Opt("--mode", "import (keep it as it is) or fork (a starting point to change)", &Opts::mode)
            .Required()
            .To("mode"),
        Opt("--reason", "why (shown to the reviewer)", &Opts::reason).To("reason"),
        Opt("id", "external:codex:SCOPE/NAME", &Opts::artifact).Required().To("external_skill_id"),
        Opt("fingerprint", "the registered fingerprint (64 hex digits)", &Opts::target)
            .Required()
            .To("fingerprint")},
       {"POST", "/v1/external-skills/import"},
       FormatImported},
      {"skill export",
       "write an approved managed Skill revision here as a SKILL.md package for Codex or Claude "
       "Code, with its provenance (never over a file export did not write)",
       {Opt("--target", "codex (.agents/skills/NAME) or claude (.claude/skills/NAME)",
            &Opts::export_target)
            .Required(),
        ScopeOption(), Opt("--revision", "the approved revision", &Opts::revision).Required(),
        Opt("--destination", "the package directory (default: the target's, under the current one)",
            &Opts::destination),
        Opt("skill_id", "skl_…", &Opts::artifact).Required()},
       {},
       nullptr,
       Json::object(),
       RunSkillExport},
  };
  return rows;
}

}  // namespace pc
