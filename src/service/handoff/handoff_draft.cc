#include "service/handoff/handoff_draft.h"

#include <nlohmann/json.hpp>
#include <set>

#include "common/json_parse.h"
#include "common/utf8.h"
#include "extract/operations.h"
#include "service/handoff/handoff_content.h"

namespace pc {
namespace {

using nlohmann::json;

// The prompt (docs/handoff.md): the objective is the caller's, the model writes the rest.
constexpr const char* kHandoffPrompt =
    R"PCPROMPT(You prepare a handoff: the note one working session leaves so the next one can continue.

You are given the caller's OBJECTIVE and a list of EVIDENCE items, each with an id (C1, C2, ...), a kind and its text. Write the handoff from that evidence only.

Answer with one JSON object and nothing else:
{
  "state": [{"text": "...", "evidence": ["C1", "C3"]}],
  "disposition": "continuable" | "blocked" | "complete",
  "next_action": {"text": "...", "evidence": ["C2"]} or null,
  "omissions": [{"text": "...", "evidence": "C4" or null}]
}

Rules:
- state: 1 to 64 statements of fact that describe where the work stands now. Each cites 1 to 32 evidence ids that support it. Never state what no evidence supports.
- disposition: "continuable" if the work can go on, "complete" if the objective is reached, "blocked" if it cannot go on; when blocked, a state statement says what blocks it.
- next_action: the one action that should happen next, citing the evidence that calls for it; null when no action is proposed.
- omissions: relevant material you know of but could not include or verify (at most 64), with the id of the evidence it concerns, or null.
- Use only the ids given. Do not restate the objective; do not invent evidence. Keep the whole handoff short: its text must fit in max_bytes bytes.
- Write in the language of the evidence.
)PCPROMPT";

const std::string& OutputSchema() {
  static const std::string kSchema = [] {
    json cited{{"type", "object"},
               {"required", {"text", "evidence"}},
               {"properties",
                {{"text", {{"type", "string"}}},
                 {"evidence", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}};
    json omission{{"type", "object"},
                  {"required", {"text", "evidence"}},
                  {"properties",
                   {{"text", {{"type", "string"}}}, {"evidence", {{"type", {"string", "null"}}}}}}};
    json next = cited;
    next["type"] = {"object", "null"};
    return json{
        {"type", "object"},
        {"required", {"state", "disposition", "next_action", "omissions"}},
        {"properties",
         {{"state", {{"type", "array"}, {"items", cited}}},
          {"disposition", {{"type", "string"}, {"enum", {"continuable", "blocked", "complete"}}}},
          {"next_action", next},
          {"omissions", {{"type", "array"}, {"items", omission}}}}}}
        .dump();
  }();
  return kSchema;
}

Status Unusable(const std::string& why) {
  return Status(Code::kProviderError, "the model's handoff draft is unusable: " + why);
}

// The answer's object, read as flush reads its answer (extract/operations.h).
Result<json> AnswerObject(const std::string& answer) {
  Result<json> doc = ModelAnswerObject(answer);
  if (!doc.ok()) return Unusable(doc.status().message());
  return doc;
}

Result<size_t> EvidenceIndex(const json& id, size_t shown, const std::string& at) {
  if (!id.is_string()) return Unusable(at + " must be an evidence id such as \"C1\"");
  const std::string s = id.get<std::string>();
  size_t n = 0;
  bool ok = s.size() >= 2 && s.size() <= 4 && s[0] == 'C' && s[1] != '0';
  for (size_t i = 1; ok && i < s.size(); ++i) {
    ok = s[i] >= '0' && s[i] <= '9';
    n = n * 10 + static_cast<size_t>(s[i] - '0');
  }
  if (!ok || n < 1 || n > shown)
    return Unusable(at + " cites \"" + CutUtf8(s, 40) +
                    "\", which is not one of the evidence ids C1…C" + std::to_string(shown));
  return n - 1;
}

Result<HandoffStatement> Statement(const json& j, const std::vector<ShownEvidence>& evidence,
                                   const std::string& at) {
  if (!j.is_object() || !j.contains("text") || !j["text"].is_string() || !j.contains("evidence") ||
      !j["evidence"].is_array())
    return Unusable(at + " must be {\"text\": …, \"evidence\": [ids]}");
  HandoffStatement st{j["text"].get<std::string>(), {}};
  std::set<size_t> seen;
  for (size_t i = 0; i < j["evidence"].size(); ++i) {
    PC_ASSIGN_OR_RETURN(size_t k, EvidenceIndex(j["evidence"][i], evidence.size(),
                                                at + ".evidence[" + std::to_string(i) + "]"));
    if (seen.insert(k).second) st.citations.push_back(evidence[k].citation);
  }
  return st;
}

}  // namespace

ExtractionRequest BuildHandoffRequest(const std::string& objective,
                                      const std::vector<ShownEvidence>& evidence,
                                      int64_t max_bytes) {
  json in{{"objective", objective}, {"max_bytes", max_bytes}, {"evidence", json::array()}};
  for (size_t i = 0; i < evidence.size(); ++i)
    in["evidence"].push_back({{"id", "C" + std::to_string(i + 1)},
                              {"kind", evidence[i].kind},
                              {"text", CutUtf8(evidence[i].text, kEvidencePromptBytes)}});
  return ExtractionRequest{kHandoffPromptVersion, kHandoffPrompt,
                           in.dump(2, ' ', false, json::error_handler_t::replace), OutputSchema()};
}

Result<HandoffContent> ParseHandoffAnswer(const std::string& answer, const std::string& objective,
                                          const std::vector<ShownEvidence>& evidence) {
  PC_ASSIGN_OR_RETURN(json doc, AnswerObject(answer));
  for (const auto& [key, value] : doc.items())
    if (key != "state" && key != "disposition" && key != "next_action" && key != "omissions")
      return Unusable("unknown field \"" + CutUtf8(key, 40) + "\"");
  HandoffContent c;
  c.objective = objective;
  if (!doc.contains("state") || !doc["state"].is_array())
    return Unusable("it has no \"state\" array");
  for (size_t i = 0; i < doc["state"].size(); ++i) {
    PC_ASSIGN_OR_RETURN(HandoffStatement st,
                        Statement(doc["state"][i], evidence, "state[" + std::to_string(i) + "]"));
    c.state.push_back(std::move(st));
  }
  const std::string d = doc.contains("disposition") && doc["disposition"].is_string()
                            ? doc["disposition"].get<std::string>()
                            : "";
  std::optional<HandoffDisposition> disposition = ParseHandoffDisposition(d);
  if (!disposition)
    return Unusable("disposition must be \"continuable\", \"blocked\" or \"complete\"");
  c.disposition = *disposition;
  if (doc.contains("next_action") && !doc["next_action"].is_null()) {
    PC_ASSIGN_OR_RETURN(HandoffStatement st,
                        Statement(doc["next_action"], evidence, "next_action"));
    c.next_action = std::move(st);
  }
  if (doc.contains("omissions")) {
    if (!doc["omissions"].is_array()) return Unusable("omissions must be an array");
    for (size_t i = 0; i < doc["omissions"].size(); ++i) {
      const json& o = doc["omissions"][i];
      const std::string at = "omissions[" + std::to_string(i) + "]";
      if (!o.is_object() || !o.contains("text") || !o["text"].is_string())
        return Unusable(at + " must be {\"text\": …, \"evidence\": id or null}");
      HandoffOmission om{o["text"].get<std::string>(), std::nullopt};
      if (o.contains("evidence") && !o["evidence"].is_null()) {
        PC_ASSIGN_OR_RETURN(size_t k,
                            EvidenceIndex(o["evidence"], evidence.size(), at + ".evidence"));
        om.citation = evidence[k].citation;
      }
      c.omissions.push_back(std::move(om));
    }
  }
  Status shape = CheckHandoffContent(c, "");
  if (!shape.ok()) return Unusable(shape.message());
  return c;
}

Result<HandoffContent> FitHandoff(HandoffContent c, int64_t max_bytes) {
  auto fits = [&](const HandoffContent& x) {
    return static_cast<int64_t>(HandoffContentText(x).size()) <= max_bytes;
  };
  if (fits(c)) return c;
  size_t cut_state = 0, cut_omissions = 0;
  HandoffContent out = c;
  auto with_note = [&]() {
    HandoffContent x = out;
    std::string note = "Cut to fit max_bytes " + std::to_string(max_bytes) + ": " +
                       std::to_string(cut_state) + " state statements and " +
                       std::to_string(cut_omissions) + " omissions of the generated draft";
    if (x.omissions.size() >= kMaxHandoffOmissions) x.omissions.pop_back();
    x.omissions.push_back({note, std::nullopt});
    return x;
  };
  while (!fits(with_note())) {
    if (!out.omissions.empty()) {
      out.omissions.pop_back();
      ++cut_omissions;
    } else if (out.state.size() > 1) {
      out.state.pop_back();
      ++cut_state;
    } else {
      return Status(Code::kProviderError, "the model's handoff draft does not fit max_bytes " +
                                              std::to_string(max_bytes) +
                                              " even cut to one state statement");
    }
  }
  return with_note();
}

}  // namespace pc
