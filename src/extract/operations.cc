#include "extract/operations.h"

#include <nlohmann/json.hpp>
#include <set>

#include "common/json_parse.h"
#include "common/utf8.h"
#include "model/text_check.h"

namespace pc {
namespace {

using nlohmann::json;

// "S3" with 1 ≤ 3 ≤ count → 2.
bool ParseId(const json& v, char prefix, size_t count, size_t& index) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() < 2 || s.size() > 10 || s[0] != prefix) return false;
  size_t n = 0;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    n = n * 10 + static_cast<size_t>(s[i] - '0');
  }
  if (n < 1 || n > count || s[1] == '0') return false;
  index = n - 1;
  return true;
}

// The answer's "triples" (optional): each checked on its own, like operations.
void ParseTriples(const json& doc, size_t sources_shown, ParsedAnswer& out) {
  if (!doc.contains("triples") || doc["triples"].is_null()) return;
  if (!doc["triples"].is_array()) {
    out.rejected.push_back({doc["triples"].dump(-1, ' ', false, json::error_handler_t::replace),
                            "triples: not an array"});
    return;
  }
  for (const json& t : doc["triples"]) {
    std::string raw = t.dump(-1, ' ', false, json::error_handler_t::replace);
    auto reject = [&](std::string reason) {
      out.rejected.push_back({raw, "triple: " + std::move(reason)});
    };
    if (out.triples.size() >= kMaxTriples) {
      reject("more than " + std::to_string(kMaxTriples) + " triples in one answer");
      continue;
    }
    if (!t.is_object()) {
      reject("not an object");
      continue;
    }
    Triple triple;
    triple.json = raw;
    bool ok = true;
    for (auto [field, value] : {std::pair<const char*, std::string*>{"subject", &triple.subject},
                                {"relation", &triple.relation},
                                {"object", &triple.object}}) {
      if (!t.contains(field) || !t[field].is_string()) {
        reject(std::string("no ") + field);
        ok = false;
        break;
      }
      *value = t[field].get<std::string>();
      if (Status text = CheckText(field, *value, kMaxTriplePartBytes); !text.ok()) {
        reject(text.message());
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    if (CountCodePoints(FoldForMatch(triple.subject)).value_or(0) < 2 ||
        CountCodePoints(FoldForMatch(triple.object)).value_or(0) < 2) {
      reject("subject and object must each name an entity (at least two characters)");
      continue;
    }
    if (!t.contains("evidence") || !t["evidence"].is_array() || t["evidence"].empty()) {
      reject("no evidence");
      continue;
    }
    std::set<size_t> seen;
    for (const json& e : t["evidence"]) {
      size_t index = 0;
      if (!ParseId(e, 'S', sources_shown, index)) {
        reject("evidence " + e.dump() + " is not a source of this call (S1…S" +
               std::to_string(sources_shown) + ")");
        ok = false;
        break;
      }
      if (seen.insert(index).second) triple.evidence.push_back(index);
    }
    if (ok) out.triples.push_back(std::move(triple));
  }
}

}  // namespace

// The answer's JSON object: the whole answer, or the inside of one Markdown code fence that is
// the whole answer (```json … ```). Prose around an object is not "tolerated" by cutting from the
// first '{' to the last '}': such a span may join two objects, or pick braces out of the prose.
Result<Json> ModelAnswerObject(const std::string& answer) {
  const size_t first = answer.find_first_not_of(" \t\r\n");
  const size_t last = answer.find_last_not_of(" \t\r\n");
  if (first == std::string::npos)
    return Status(Code::kProviderError, "the model's answer is empty");
  std::string_view body(answer.data() + first, last - first + 1);
  constexpr std::string_view kFence = "```";
  if (body.size() >= 2 * kFence.size() && body.substr(0, kFence.size()) == kFence &&
      body.substr(body.size() - kFence.size()) == kFence) {
    const size_t line_end = body.find('\n');
    if (line_end == std::string_view::npos || line_end >= body.size() - kFence.size())
      return Status(Code::kProviderError, "the model's answer is an empty code fence");
    body = body.substr(line_end + 1, body.size() - kFence.size() - line_end - 1);
    if (body.find(kFence) != std::string_view::npos)
      return Status(Code::kProviderError, "the model's answer has more than one code fence");
  }
  Result<Json> doc = ParseJson(body);
  if (!doc.ok() || !doc->is_object())
    return Status(Code::kProviderError,
                  "the model's answer is not one JSON object (" +
                      (doc.ok() ? std::string("another JSON value") : doc.status().message()) +
                      "): " + CutUtf8(answer, 200));
  return doc;
}

bool IsExtractionKind(const std::string& kind) {
  static const std::set<std::string> kKinds = {"fact", "preference", "decision", "constraint",
                                               "working_note"};
  return kKinds.count(kind) > 0;
}

namespace {

// One operation of the answer as a candidate, or why it is rejected (the status's message).
Result<Candidate> ParseOperation(const json& op, size_t sources_shown, size_t entries_shown,
                                 size_t max_text_bytes) {
  auto reject = [](std::string reason) { return InvalidArgument(std::move(reason)); };
  if (!op.is_object()) return reject("not an object");
  Candidate c;
  const std::string name =
      op.contains("op") && op["op"].is_string() ? op["op"].get<std::string>() : "";
  if (name == "add")
    c.op = ChangeOp::kAdd;
  else if (name == "revise")
    c.op = ChangeOp::kRevise;
  else
    return reject(name.empty() ? "no \"op\"" : "unknown op \"" + name + "\" (add or revise)");
  if (op.contains("kind") && !op["kind"].is_null()) {
    if (!op["kind"].is_string() || !IsExtractionKind(op["kind"].get<std::string>()))
      return reject("kind must be one of fact, preference, decision, constraint, working_note");
    c.kind = op["kind"].get<std::string>();
  } else if (c.op == ChangeOp::kAdd) {
    return reject("an add needs a kind");
  }
  if (!op.contains("text") || !op["text"].is_string()) return reject("no text");
  c.text = op["text"].get<std::string>();
  if (Status text = CheckText("text", c.text, max_text_bytes); !text.ok())
    return reject(text.message());  // the same check as an explicit remember
  if (!op.contains("evidence") || !op["evidence"].is_array() || op["evidence"].empty())
    return reject("no evidence");
  std::set<size_t> seen;
  for (const json& e : op["evidence"]) {
    size_t index = 0;
    if (!ParseId(e, 'S', sources_shown, index))
      return reject("evidence " + e.dump() + " is not a source of this call (S1…S" +
                    std::to_string(sources_shown) + ")");
    if (seen.insert(index).second) c.evidence.push_back(index);
  }
  if (c.op == ChangeOp::kRevise &&
      (!op.contains("target") || !ParseId(op["target"], 'E', entries_shown, c.target)))
    return reject("target " +
                  (op.contains("target") ? op["target"].dump() : std::string("(none)")) +
                  " is not an entry shown (E1…E" + std::to_string(entries_shown) + ")");
  return c;
}

}  // namespace

Result<ParsedAnswer> ParseAnswer(const std::string& answer, size_t sources_shown,
                                 size_t entries_shown, size_t max_text_bytes) {
  PC_ASSIGN_OR_RETURN(json doc, ModelAnswerObject(answer));
  if (!doc.is_object())
    return Status(Code::kProviderError,
                  "the model's answer is not a JSON object: " + CutUtf8(answer, 200));
  if (!doc.contains("operations") || !doc["operations"].is_array())
    return Status(Code::kProviderError, "the model's answer has no \"operations\" array");
  ParsedAnswer out;
  std::set<size_t> revised;
  for (const json& op : doc["operations"]) {
    std::string raw = op.dump(-1, ' ', false, json::error_handler_t::replace);
    Result<Candidate> c = ParseOperation(op, sources_shown, entries_shown, max_text_bytes);
    if (c.ok() && c->op == ChangeOp::kRevise && !revised.insert(c->target).second)
      c = InvalidArgument("E" + std::to_string(c->target + 1) +
                          " is already revised in this answer");
    if (!c.ok()) {
      out.rejected.push_back({std::move(raw), c.status().message()});
      continue;
    }
    c->json = std::move(raw);
    out.valid.push_back(std::move(c).value());
  }
  ParseTriples(doc, sources_shown, out);
  return out;
}

}  // namespace pc
