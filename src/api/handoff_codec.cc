#include "api/handoff_codec.h"

#include <nlohmann/json.hpp>

#include "model/citation.h"

namespace pc {
namespace {

constexpr const char* kContentSchema = "powercontext.handoff.v1";
constexpr const char* kPreparedSchema = "powercontext.prepared-handoff.v1";

}  // namespace

Status JsonFieldError(const std::string& field, const std::string& message) {
  return FieldError(field, message);
}

// `j` must be an object with only `allowed` fields and every `required` one (null allowed).
Status JsonShape(const Json& j, const std::string& at, std::initializer_list<const char*> allowed,
                 std::initializer_list<const char*> required) {
  if (!j.is_object()) return JsonFieldError(at, at + " must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) return JsonFieldError(at + "." + key, "unknown field \"" + at + "." + key + "\"");
  }
  for (const char* r : required)
    if (!j.contains(r)) return JsonFieldError(at + "." + r, at + "." + r + " is required");
  return Status::Ok();
}

Result<std::string> JsonString(const Json& j, const char* name, const std::string& at) {
  const Json& v = j.at(name);
  if (!v.is_string()) return JsonFieldError(at + "." + name, at + "." + name + " must be a string");
  return v.get<std::string>();
}

Result<MemoryRef> RefFromJson(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(JsonShape(j, at, {"family", "artifact_id", "revision"},
                               {"family", "artifact_id", "revision"}));
  MemoryRef r;
  PC_ASSIGN_OR_RETURN(r.family, JsonString(j, "family", at));
  PC_ASSIGN_OR_RETURN(r.artifact_id, JsonString(j, "artifact_id", at));
  const Json& rev = j.at("revision");
  if (!rev.is_number_integer() || (rev.is_number_unsigned() && rev.get<uint64_t>() > INT64_MAX))
    return JsonFieldError(at + ".revision", at + ".revision must be an integer");
  r.revision = rev.get<int64_t>();
  return r;
}

Result<HandoffCitation> CitationFrom(const Json& j, const std::string& at) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
    return JsonFieldError(
        at, at + " must be a citation object with a kind: source, artifact or memory");
  const std::string kind = j["kind"].get<std::string>();
  HandoffCitation c;
  if (kind == "source") {
    PC_RETURN_IF_ERROR(JsonShape(j, at, {"kind", "source_ref"}, {"source_ref"}));
    const std::string sat = at + ".source_ref";
    PC_RETURN_IF_ERROR(
        JsonShape(j["source_ref"], sat, {"name", "source_id"}, {"name", "source_id"}));
    c.kind = HandoffCitationKind::kSource;
    PC_ASSIGN_OR_RETURN(c.source_name, JsonString(j["source_ref"], "name", sat));
    PC_ASSIGN_OR_RETURN(c.source_id, JsonString(j["source_ref"], "source_id", sat));
  } else if (kind == "artifact") {
    PC_RETURN_IF_ERROR(JsonShape(j, at, {"kind", "artifact_ref"}, {"artifact_ref"}));
    c.kind = HandoffCitationKind::kArtifact;
    PC_ASSIGN_OR_RETURN(c.artifact, RefFromJson(j["artifact_ref"], at + ".artifact_ref"));
  } else if (kind == "memory") {
    PC_RETURN_IF_ERROR(JsonShape(j, at, {"kind", "memory_citation"}, {"memory_citation"}));
    const std::string mat = at + ".memory_citation";
    if (!j["memory_citation"].is_object())
      return JsonFieldError(mat, mat + " must be a MemoryCitation object");
    Result<Citation> m = CitationFromJson(j["memory_citation"]);
    if (!m.ok()) return JsonFieldError(mat, mat + ": " + m.status().message());
    c.kind = HandoffCitationKind::kMemory;
    c.artifact = m->memory;
    c.entry_id = m->entry_id;
    c.entry_version_id = m->entry_version_id;
  } else {
    return JsonFieldError(at + ".kind", at + ".kind must be source, artifact or memory");
  }
  return c;
}

Result<std::vector<HandoffCitation>> CitationsFrom(const Json& j, const std::string& at) {
  return ItemsFrom(j, at, "citations", CitationFrom);
}

Result<HandoffDisposition> DispositionFrom(const Json& j, const std::string& at) {
  PC_ASSIGN_OR_RETURN(std::string d, JsonString(j, "disposition", at));
  std::optional<HandoffDisposition> disposition = ParseHandoffDisposition(d);
  if (!disposition)
    return JsonFieldError(at + ".disposition",
                          at + ".disposition must be continuable, blocked or complete");
  return *disposition;
}

Result<HandoffStatement> StatementFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(JsonShape(j, at, {"text", "citations"}, {"text", "citations"}));
  HandoffStatement st;
  PC_ASSIGN_OR_RETURN(st.text, JsonString(j, "text", at));
  PC_ASSIGN_OR_RETURN(st.citations, CitationsFrom(j["citations"], at + ".citations"));
  return st;
}

// A HandoffDraft, or with `schema` a HandoffContent.
Result<HandoffContent> ContentFrom(const Json& j, const std::string& at, bool schema) {
  if (schema) {
    PC_RETURN_IF_ERROR(JsonShape(
        j, at, {"schema", "objective", "state", "disposition", "next_action", "omissions"},
        {"schema", "objective", "state", "disposition", "next_action", "omissions"}));
    if (j["schema"] != kContentSchema)
      return JsonFieldError(at + ".schema", at + ".schema must be \"" +
                                                std::string(kContentSchema) +
                                                "\"; this server reads no other handoff version");
  } else {
    PC_RETURN_IF_ERROR(
        JsonShape(j, at, {"objective", "state", "disposition", "next_action", "omissions"},
                  {"objective", "state", "disposition", "next_action", "omissions"}));
  }
  HandoffContent c;
  PC_ASSIGN_OR_RETURN(c.objective, JsonString(j, "objective", at));
  PC_ASSIGN_OR_RETURN(c.state, ItemsFrom(j["state"], at + ".state", "statements", StatementFrom));
  PC_ASSIGN_OR_RETURN(c.disposition, DispositionFrom(j, at));
  if (!j["next_action"].is_null()) {
    PC_ASSIGN_OR_RETURN(HandoffStatement st, StatementFrom(j["next_action"], at + ".next_action"));
    c.next_action = std::move(st);
  }
  if (!j["omissions"].is_array())
    return JsonFieldError(at + ".omissions", at + ".omissions must be an array");
  for (size_t i = 0; i < j["omissions"].size(); ++i) {
    const Json& o = j["omissions"][i];
    const std::string oat = at + ".omissions[" + std::to_string(i) + "]";
    PC_RETURN_IF_ERROR(JsonShape(o, oat, {"text", "citation"}, {"text", "citation"}));
    HandoffOmission om;
    PC_ASSIGN_OR_RETURN(om.text, JsonString(o, "text", oat));
    if (!o["citation"].is_null()) {
      PC_ASSIGN_OR_RETURN(HandoffCitation cit, CitationFrom(o["citation"], oat + ".citation"));
      om.citation = std::move(cit);
    }
    c.omissions.push_back(std::move(om));
  }
  return c;
}

Result<PreparedHandoff> PreparedFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(JsonShape(j, at, {"schema", "scope_id", "base", "content"},
                               {"schema", "scope_id", "base", "content"}));
  if (j["schema"] != kPreparedSchema)
    return JsonFieldError(at + ".schema",
                          at + ".schema must be \"" + std::string(kPreparedSchema) +
                              "\"; this server reads no other prepared handoff version");
  PreparedHandoff p;
  PC_ASSIGN_OR_RETURN(p.scope_id, JsonString(j, "scope_id", at));
  if (!j["base"].is_null()) {
    PC_ASSIGN_OR_RETURN(MemoryRef base, RefFromJson(j["base"], at + ".base"));
    p.base = std::move(base);
  }
  PC_ASSIGN_OR_RETURN(p.content, ContentFrom(j["content"], at + ".content", true));
  return p;
}

Json CitationJson(const HandoffCitation& c) {
  switch (c.kind) {
    case HandoffCitationKind::kSource:
      return Json{{"kind", "source"},
                  {"source_ref", {{"name", c.source_name}, {"source_id", c.source_id}}}};
    case HandoffCitationKind::kArtifact:
      return Json{{"kind", "artifact"}, {"artifact_ref", ToJson(c.artifact)}};
    case HandoffCitationKind::kMemory:
      break;
  }
  return Json{{"kind", "memory"},
              {"memory_citation", ToJson(Citation{c.artifact, c.entry_id, c.entry_version_id})}};
}

Json StatementJson(const HandoffStatement& st) {
  Json cites = Json::array();
  for (const HandoffCitation& c : st.citations) cites.push_back(CitationJson(c));
  return Json{{"text", st.text}, {"citations", cites}};
}

// A HandoffDraft, or with `schema` a HandoffContent.
Json ContentJson(const HandoffContent& c, bool schema) {
  Json state = Json::array();
  for (const HandoffStatement& st : c.state) state.push_back(StatementJson(st));
  Json omissions = Json::array();
  for (const HandoffOmission& o : c.omissions)
    omissions.push_back(
        Json{{"text", o.text}, {"citation", o.citation ? CitationJson(*o.citation) : Json()}});
  Json j{{"objective", c.objective},
         {"state", state},
         {"disposition", HandoffDispositionName(c.disposition)},
         {"next_action", c.next_action ? StatementJson(*c.next_action) : Json()},
         {"omissions", omissions}};
  if (schema) j["schema"] = kContentSchema;
  return j;
}

Json PreparedJson(const PreparedHandoff& p) {
  return Json{{"schema", kPreparedSchema},
              {"scope_id", p.scope_id},
              {"base", p.base ? ToJson(*p.base) : Json()},
              {"content", ContentJson(p.content, true)}};
}

Json ResolutionJson(const HandoffResolution& res) {
  Json checks = Json::array();
  for (const HandoffEvidenceCheck& c : res.checks) {
    Json unavailable = Json::array();
    for (const HandoffCitation& x : c.unavailable) unavailable.push_back(CitationJson(x));
    checks.push_back(Json{{"claim", c.state_index ? "state" : "next_action"},
                          {"state_index", c.state_index ? Json(*c.state_index) : Json()},
                          {"status", c.unavailable.empty() ? "available" : "unavailable"},
                          {"unavailable_evidence", unavailable}});
  }
  return Json{
      {"trust", "untrusted_history"},
      {"status", res.content ? "resolved" : "empty"},
      {"scope_id", res.scope_id},
      {"content", res.content ? ContentJson(*res.content, true) : Json()},
      {"selection", HandoffSelectionName(res.selection)},
      {"selected_revision", res.selected_revision ? ToJson(*res.selected_revision) : Json()},
      {"current_revision", res.current_revision ? ToJson(*res.current_revision) : Json()},
      {"evidence_checks", checks}};
}

}  // namespace pc
