#include "extract/experience_prompt.h"

#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "extract/generated_prompt.h"
#include "extract/operations.h"
#include "extract/prompt.h"
#include "model/text_check.h"

namespace pc {
namespace {

using nlohmann::json;

const std::string& ExperienceSchema() {
  static const std::string kSchema =
      json{{"type", "object"},
           {"required", {"experience"}},
           {"properties",
            {{"experience",
              {{"type", {"object", "null"}},
               {"required", {"situation", "action", "outcome", "lesson"}},
               {"properties",
                {{"situation", {{"type", "string"}}},
                 {"action", {{"type", "string"}}},
                 {"outcome", {{"type", "string"}}},
                 {"lesson", {{"type", "string"}}}}}}}}}}
          .dump();
  return kSchema;
}

Status NotAnExperience(const std::string& why) {
  return Status(Code::kProviderError, "the model's answer is not a complete Experience: " + why);
}

}  // namespace

void AddShownArtifacts(Json& in, const std::vector<ShownArtifact>& artifacts,
                       std::optional<size_t> replaces) {
  in["artifacts"] = json::array();
  for (size_t i = 0; i < artifacts.size(); ++i)
    in["artifacts"].push_back({{"id", "A" + std::to_string(i + 1)},
                               {"family", artifacts[i].family},
                               {"text", CutUtf8(artifacts[i].text, kArtifactPromptBytes)}});
  if (replaces) in["replaces"] = "A" + std::to_string(*replaces + 1);
}

ExtractionRequest BuildExperienceRequest(const std::vector<Source>& sources,
                                         const std::vector<ManifestItem>& entries,
                                         const std::vector<ShownArtifact>& artifacts,
                                         std::optional<size_t> replaces, bool entries_cut) {
  json in = PromptInput(sources, entries);
  AddShownArtifacts(in, artifacts, replaces);
  if (entries_cut) in["entries_cut"] = true;
  return ExtractionRequest{kExperiencePromptVersion, kExperiencePrompt,
                           in.dump(2, ' ', false, json::error_handler_t::replace),
                           ExperienceSchema()};
}

Result<std::optional<ExperienceContent>> ParseExperienceAnswer(const std::string& answer) {
  PC_ASSIGN_OR_RETURN(json doc, ModelAnswerObject(answer));
  if (!doc.contains("experience"))
    return NotAnExperience("it has no \"experience\" (null when there is no lesson)");
  const json& e = doc["experience"];
  if (e.is_null()) return std::optional<ExperienceContent>();
  if (!e.is_object()) return NotAnExperience("\"experience\" is not an object");
  ExperienceContent c;
  for (auto [name, field] : {std::pair{"situation", &c.situation}, std::pair{"action", &c.action},
                             std::pair{"outcome", &c.outcome}, std::pair{"lesson", &c.lesson}}) {
    if (!e.contains(name) || !e[name].is_string())
      return NotAnExperience(std::string("no ") + name);
    *field = e[name].get<std::string>();
    if (Status s = CheckText(name, *field, kGeneratedFieldBytes); !s.ok())
      return NotAnExperience(s.message());
  }
  return std::optional<ExperienceContent>(std::move(c));
}

}  // namespace pc
