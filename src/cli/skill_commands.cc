// The external Skill commands (upstream RFC 0051, docs/skills.md): `skill external scan | list |
// resolve`, against a server with external_skill_roots. Managed Skills (`skill generate | show |
// export`) come with the Skill family.
#include <nlohmann/json.hpp>

#include "cli/command_table.h"
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

}  // namespace

const std::vector<Row>& SkillRows() {
  static const std::vector<Row> rows = {
      {"skill", "Skills (docs/skills.md)"},
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
  };
  return rows;
}

}  // namespace pc
