// `powercontext skill export` (RFC 0051's Codex projection; docs/skills.md): one approved
// managed Skill revision written as an Agent-native package a host discovers — SKILL.md (YAML
// front matter with its name and description, the instructions, its validation checks) and
// powercontext.json, the provenance: the exact revision, its evidence, and the SHA-256 of the
// SKILL.md written. The revision stays the content authority; the directory is a rebuildable
// projection. A file export did not write is never replaced: a destination is written only when
// it is absent, empty, or holds exactly a previous export's two files, SKILL.md unedited.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"

namespace pc {

inline constexpr const char* kSkillExportManifest = "powercontext.json";
inline constexpr const char* kSkillExportFormat = "powercontext.skill-export.v1";

// SKILL.md of a SkillArtifact (the spec's shape: {artifact, content, source_refs,
// artifact_refs}): deterministic, the same bytes for the same revision.
std::string RenderSkillMd(const nlohmann::json& skill);

// Where a target's hosts look in a project: .agents/skills/NAME (codex) or .claude/skills/NAME
// (claude). InvalidArgument for another target, or a name that is not one safe path segment.
Result<std::string> DefaultSkillDestination(const std::string& target, const std::string& name);

struct SkillExportResult {
  std::string directory;
  std::string skill_md_sha256;
  bool replaced = false;  // a previous export's files were there
};

// Writes the package into `destination` (created with its parents). `scope` is the scope as the
// caller named it; `exported_at` an RFC 3339 time. InvalidArgument when the destination holds
// anything export did not write (nothing is changed then).
Result<SkillExportResult> WriteSkillExport(const std::string& destination,
                                           const std::string& target, const std::string& scope,
                                           const nlohmann::json& skill,
                                           const std::string& exported_at);

}  // namespace pc
