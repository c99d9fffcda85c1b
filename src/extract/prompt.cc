#include "extract/prompt.h"

#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "extract/generated_prompt.h"

namespace pc {

const std::string& ExtractionInstructions() {
  static const std::string kText = kExtractPrompt;
  return kText;
}

const std::string& ExtractionOutputSchema() {
  static const std::string kSchema =
      nlohmann::json{
          {"type", "object"},
          {"required", {"operations"}},
          {"properties",
           {{"operations",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"op", "text", "evidence"}},
                {"properties",
                 {{"op", {{"type", "string"}, {"enum", {"add", "revise"}}}},
                  {"kind",
                   {{"type", "string"},
                    {"enum", {"fact", "preference", "decision", "constraint", "working_note"}}}},
                  {"text", {{"type", "string"}}},
                  {"target", {{"type", "string"}}},
                  {"evidence", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}}}}},
            {"triples",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"required", {"subject", "relation", "object", "evidence"}},
                {"properties",
                 {{"subject", {{"type", "string"}}},
                  {"relation", {{"type", "string"}}},
                  {"object", {{"type", "string"}}},
                  {"evidence", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}}}}}}}}
          .dump();
  return kSchema;
}

Json PromptInput(const std::vector<Source>& sources, const std::vector<ManifestItem>& entries) {
  using nlohmann::json;
  json in{{"sources", json::array()}, {"entries", json::array()}};
  for (size_t i = 0; i < sources.size(); ++i)
    in["sources"].push_back({{"id", "S" + std::to_string(i + 1)},
                             {"kind", sources[i].kind},
                             {"text", CutUtf8(sources[i].content, kSourcePromptBytes)}});
  for (size_t i = 0; i < entries.size(); ++i)
    in["entries"].push_back({{"id", "E" + std::to_string(i + 1)},
                             {"kind", entries[i].version.kind},
                             {"text", CutUtf8(entries[i].version.text, kEntryPromptBytes)}});
  return in;
}

ExtractionRequest BuildExtractionRequest(const std::vector<Source>& sources,
                                         const std::vector<ManifestItem>& entries) {
  return ExtractionRequest{
      kPromptVersion, ExtractionInstructions(),
      PromptInput(sources, entries).dump(2, ' ', false, nlohmann::json::error_handler_t::replace),
      ExtractionOutputSchema()};
}

}  // namespace pc
