#include "extract/review_prompt.h"

#include <nlohmann/json.hpp>
#include <set>

#include "common/utf8.h"
#include "extract/generated_prompt.h"
#include "extract/prompt.h"
#include "model/text_check.h"

namespace pc {
namespace {

using nlohmann::json;

constexpr size_t kFieldBytes = 2000;

// The evidence list of an item: "S<n>" ids of the sources shown, each once; false with `why`.
bool ReadEvidence(const json& item, size_t shown, std::vector<size_t>& out, std::string& why) {
  if (!item.contains("evidence") || !item["evidence"].is_array() || item["evidence"].empty()) {
    why = "no evidence";
    return false;
  }
  std::set<size_t> seen;
  for (const json& e : item["evidence"]) {
    const std::string s = e.is_string() ? e.get<std::string>() : "";
    size_t n = 0;
    bool ok = s.size() >= 2 && s.size() <= 10 && s[0] == 'S' && s[1] != '0';
    for (size_t i = 1; ok && i < s.size(); ++i) {
      ok = s[i] >= '0' && s[i] <= '9';
      n = n * 10 + static_cast<size_t>(s[i] - '0');
    }
    if (!ok || n < 1 || n > shown) {
      why = "evidence " + e.dump() + " is not a source of this call (S1…S" + std::to_string(shown) +
            ")";
      return false;
    }
    if (seen.insert(n - 1).second) out.push_back(n - 1);
  }
  return true;
}

bool ReadField(const json& item, const char* name, std::string& out, std::string& why) {
  if (!item.contains(name) || !item[name].is_string()) {
    why = std::string("no ") + name;
    return false;
  }
  out = item[name].get<std::string>();
  if (Status s = CheckText(name, out, kFieldBytes); !s.ok()) {
    why = s.message();
    return false;
  }
  return true;
}

}  // namespace

ExtractionRequest BuildDailyReviewRequest(const std::string& date,
                                          const std::vector<Source>& sources,
                                          const std::vector<ManifestItem>& entries) {
  json in = PromptInput(sources, entries);
  in["date"] = date;
  static const std::string kSchema =
      json{{"type", "object"},
           {"required", {"experiences"}},
           {"properties",
            {{"experiences",
              {{"type", "array"},
               {"items",
                {{"type", "object"},
                 {"required", {"situation", "action", "outcome", "lesson", "evidence"}},
                 {"properties",
                  {{"situation", {{"type", "string"}}},
                   {"action", {{"type", "string"}}},
                   {"outcome", {{"type", "string"}}},
                   {"lesson", {{"type", "string"}}},
                   {"evidence", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}}}}},
             {"tomorrow",
              {{"type", {"object", "null"}},
               {"properties",
                {{"text", {{"type", "string"}}},
                 {"evidence", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}}}}}}
          .dump();
  return ExtractionRequest{kReviewPromptVersion, kReviewPrompt,
                           in.dump(2, ' ', false, json::error_handler_t::replace), kSchema};
}

Result<DailyReviewAnswer> ParseDailyReviewAnswer(const std::string& answer, size_t sources_shown) {
  PC_ASSIGN_OR_RETURN(json doc, ModelAnswerObject(answer));
  DailyReviewAnswer out;
  if (doc.contains("experiences") && !doc["experiences"].is_null()) {
    if (!doc["experiences"].is_array())
      return Status(Code::kProviderError,
                    "the model's answer has an \"experiences\" that is not an array");
    for (const json& e : doc["experiences"]) {
      std::string raw = e.dump(-1, ' ', false, json::error_handler_t::replace), why;
      ReviewedExperience x;
      x.json = raw;
      const bool ok =
          e.is_object() && ReadField(e, "situation", x.situation, why) &&
          ReadField(e, "action", x.action, why) && ReadField(e, "outcome", x.outcome, why) &&
          ReadField(e, "lesson", x.lesson, why) && ReadEvidence(e, sources_shown, x.evidence, why);
      if (!e.is_object()) why = "not an object";
      if (ok && out.experiences.size() >= kMaxReviewExperiences)
        why = "more than " + std::to_string(kMaxReviewExperiences) + " experiences";
      if (!ok || !why.empty()) {
        out.rejected.push_back({raw, "experience: " + why});
        continue;
      }
      out.experiences.push_back(std::move(x));
    }
  }
  if (doc.contains("tomorrow") && !doc["tomorrow"].is_null()) {
    const json& t = doc["tomorrow"];
    std::string why;
    ReviewNote note;
    if (t.is_object() && ReadField(t, "text", note.text, why) &&
        ReadEvidence(t, sources_shown, note.evidence, why))
      out.tomorrow = std::move(note);
    else
      out.rejected.push_back({t.dump(-1, ' ', false, json::error_handler_t::replace),
                              "tomorrow: " + (t.is_object() ? why : std::string("not an object"))});
  }
  return out;
}

}  // namespace pc
