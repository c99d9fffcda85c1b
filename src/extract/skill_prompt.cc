#include "extract/skill_prompt.h"

#include <nlohmann/json.hpp>
#include <tuple>

#include "extract/generated_prompt.h"
#include "extract/operations.h"
#include "extract/prompt.h"
#include "model/text_check.h"

namespace pc {
namespace {

using nlohmann::json;

const std::string& SkillSchema() {
  static const std::string kSchema =
      json{{"type", "object"},
           {"required", {"skill"}},
           {"properties",
            {{"skill",
              {{"type", {"object", "null"}},
               {"required", {"name", "description", "instructions", "validation"}},
               {"properties",
                {{"name", {{"type", "string"}}},
                 {"description", {{"type", "string"}}},
                 {"instructions", {{"type", "string"}}},
                 {"validation",
                  {{"type", "array"}, {"minItems", 1}, {"items", {{"type", "string"}}}}}}}}}}}}
          .dump();
  return kSchema;
}

Status NotASkill(const std::string& why) {
  return Status(Code::kProviderError, "the model's answer is not a complete Skill: " + why);
}

}  // namespace

ExtractionRequest BuildSkillRequest(const std::string& origin, const std::vector<Source>& sources,
                                    const std::vector<ShownArtifact>& artifacts,
                                    std::optional<size_t> replaces) {
  json in = PromptInput(sources, {});
  in.erase("entries");
  in["origin"] = origin;
  AddShownArtifacts(in, artifacts, replaces);
  return ExtractionRequest{kSkillPromptVersion, kSkillPrompt,
                           in.dump(2, ' ', false, json::error_handler_t::replace), SkillSchema()};
}

Result<std::optional<SkillContent>> ParseSkillAnswer(const std::string& answer) {
  PC_ASSIGN_OR_RETURN(json doc, ModelAnswerObject(answer));
  if (!doc.contains("skill"))
    return NotASkill("it has no \"skill\" (null when there is no reusable procedure)");
  const json& k = doc["skill"];
  if (k.is_null()) return std::optional<SkillContent>();
  if (!k.is_object()) return NotASkill("\"skill\" is not an object");
  SkillContent c;
  for (auto [name, field, max] :
       {std::tuple{"name", &c.name, kGeneratedFieldBytes},
        std::tuple{"description", &c.description, kGeneratedFieldBytes * 2},
        std::tuple{"instructions", &c.instructions, kGeneratedInstructionsBytes}}) {
    if (!k.contains(name) || !k[name].is_string()) return NotASkill(std::string("no ") + name);
    *field = k[name].get<std::string>();
    if (Status s = CheckText(name, *field, max); !s.ok()) return NotASkill(s.message());
  }
  if (!k.contains("validation") || !k["validation"].is_array() || k["validation"].empty())
    return NotASkill("no validation checks");
  for (const json& v : k["validation"]) {
    if (!v.is_string()) return NotASkill("a validation check is not a string");
    c.validation.push_back(v.get<std::string>());
    if (Status s = CheckText("validation", c.validation.back(), kGeneratedFieldBytes); !s.ok())
      return NotASkill(s.message());
  }
  return std::optional<SkillContent>(std::move(c));
}

}  // namespace pc
