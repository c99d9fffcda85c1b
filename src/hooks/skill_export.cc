#include "hooks/skill_export.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/bounded_read.h"
#include "common/sha256.h"

namespace pc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSkillMd = "SKILL.md";

// A JSON string is a YAML double-quoted scalar: the front matter says exactly the text, whatever
// characters it holds (":", "#", a leading "-" …).
std::string YamlString(const std::string& s) { return json(s).dump(); }

Status Refuse(const std::string& dir, const std::string& why) {
  return FieldError("destination",
                    "skill export writes only into a new or empty directory, or over its own "
                    "earlier export: " +
                        dir + " " + why + "; nothing was written");
}

// Writes `text` to `path` through a temporary file in the same directory.
Status WriteWhole(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".powercontext-tmp";
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return InvalidArgument("cannot write " + path.string());
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return InvalidArgument("cannot write " + path.string() + ": " + ec.message());
  }
  return Status::Ok();
}

// Whether `dir` may be written: absent, empty, or a previous export's files unedited.
Result<bool> CheckDestination(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  if (ec || st.type() == fs::file_type::not_found) return false;
  if (st.type() != fs::file_type::directory) return Refuse(dir.string(), "is not a directory");
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    names.insert(e.path().filename().string());
    if (!e.is_regular_file(ec) || e.is_symlink(ec))
      return Refuse(dir.string(),
                    "holds " + e.path().filename().string() + ", which is not a file export wrote");
  }
  if (ec) return Refuse(dir.string(), "cannot be read (" + ec.message() + ")");
  if (names.empty()) return false;
  if (names != std::set<std::string>{kSkillMd, kSkillExportManifest})
    return Refuse(dir.string(), "holds files export did not write");
  Result<std::string> manifest_text =
      ReadBoundedFile((dir / kSkillExportManifest).string(), 1 << 20);
  Result<std::string> skill_md = ReadBoundedFile((dir / kSkillMd).string(), 1 << 20);
  if (!manifest_text.ok() || !skill_md.ok())
    return Refuse(dir.string(), "holds files that cannot be read");
  json manifest = json::parse(*manifest_text, nullptr, false);
  if (!manifest.is_object() || manifest.value("format", "") != kSkillExportFormat ||
      !manifest.contains("skill_md_sha256") || !manifest["skill_md_sha256"].is_string())
    return Refuse(dir.string(), "has a powercontext.json that skill export did not write");
  if (manifest["skill_md_sha256"].get<std::string>() != Sha256Hex(*skill_md))
    return Refuse(dir.string(),
                  "has a SKILL.md edited since it was exported (keep the edit: "
                  "export elsewhere, or move it away first)");
  return true;
}

}  // namespace

std::string RenderSkillMd(const json& skill) {
  const json& c = skill.at("content");
  std::string out = "---\nname: " + YamlString(c.at("name").get<std::string>()) +
                    "\ndescription: " + YamlString(c.at("description").get<std::string>()) +
                    "\n---\n\n";
  std::string instructions = c.at("instructions").get<std::string>();
  while (!instructions.empty() && (instructions.back() == '\n' || instructions.back() == ' '))
    instructions.pop_back();
  out += instructions + "\n\n## Validation\n\n";
  for (const json& v : c.at("validation")) out += "- " + v.get<std::string>() + "\n";
  const json& a = skill.at("artifact");
  out += "\n<!-- powercontext: " + a.at("family").get<std::string>() + "/" +
         a.at("artifact_id").get<std::string>() + "@" +
         std::to_string(a.at("revision").get<int64_t>()) +
         ", exported; the revision is the source of this file -->\n";
  return out;
}

Result<std::string> DefaultSkillDestination(const std::string& target, const std::string& name) {
  if (target != "codex" && target != "claude")
    return FieldError("target", "--target must be codex or claude");
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\\\0", 0, 3) != std::string::npos)
    return FieldError("destination", "the Skill's name \"" + name +
                                         "\" is not a directory name: give --destination");
  return std::string(target == "codex" ? ".agents/skills/" : ".claude/skills/") + name;
}

Result<SkillExportResult> WriteSkillExport(const std::string& destination,
                                           const std::string& target, const std::string& scope,
                                           const json& skill, const std::string& exported_at) {
  if (target != "codex" && target != "claude")
    return FieldError("target", "--target must be codex or claude");
  const fs::path dir(destination);
  PC_ASSIGN_OR_RETURN(bool replaced, CheckDestination(dir));
  const std::string skill_md = RenderSkillMd(skill);
  SkillExportResult out{dir.string(), Sha256Hex(skill_md), replaced};
  nlohmann::ordered_json manifest{{"format", kSkillExportFormat},
                                  {"target", target},
                                  {"scope_id", scope},
                                  {"artifact", skill.at("artifact")},
                                  {"source_refs", skill.value("source_refs", json::array())},
                                  {"artifact_refs", skill.value("artifact_refs", json::array())},
                                  {"skill_md_sha256", out.skill_md_sha256},
                                  {"exported_at", exported_at}};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return InvalidArgument("cannot create " + dir.string() + ": " + ec.message());
  // SKILL.md first, the manifest last: an export cut between the two leaves a SKILL.md that no
  // manifest vouches for, which the next export refuses until a person looks; never a manifest
  // naming a file it does not describe.
  PC_RETURN_IF_ERROR(WriteWhole(dir / kSkillMd, skill_md));
  PC_RETURN_IF_ERROR(WriteWhole(dir / kSkillExportManifest, manifest.dump(2) + "\n"));
  return out;
}

}  // namespace pc
