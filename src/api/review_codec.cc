#include "api/review_codec.h"

#include <nlohmann/json.hpp>

#include "auth/request_context.h"

namespace pc {
Status ReviewFieldError(const std::string& field, const std::string& message) {
  return FieldError(field, message);
}

Status BodyShape(const Json& j, const std::string& at, std::initializer_list<const char*> allowed,
                 std::initializer_list<const char*> required) {
  const std::string prefix = at.empty() ? "" : at + ".";
  if (!j.is_object())
    return ReviewFieldError(at.empty() ? "body" : at,
                            (at.empty() ? "the body" : at) + " must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) return ReviewFieldError(prefix + key, "unknown field \"" + prefix + key + "\"");
  }
  for (const char* r : required)
    if (!j.contains(r)) return ReviewFieldError(prefix + r, prefix + r + " is required");
  return Status::Ok();
}

Result<std::string> BodyString(const Json& j, const char* name, const std::string& at) {
  const std::string field = (at.empty() ? "" : at + ".") + name;
  const Json& v = j.at(name);
  if (!v.is_string()) return ReviewFieldError(field, field + " must be a string");
  return v.get<std::string>();
}

Result<std::optional<std::string>> BodyOptString(const Json& j, const char* name) {
  if (!j.contains(name) || j[name].is_null()) return std::optional<std::string>();
  PC_ASSIGN_OR_RETURN(std::string s, BodyString(j, name, ""));
  return std::optional<std::string>(std::move(s));
}

Result<int64_t> BodyInt(const Json& j, const char* name, const std::string& at) {
  const std::string field = (at.empty() ? "" : at + ".") + name;
  const Json& v = j.at(name);
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
    return ReviewFieldError(field, field + " must be an integer");
  return v.get<int64_t>();
}

Result<MemoryRef> ArtifactRefFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(BodyShape(j, at, {"family", "artifact_id", "revision"},
                               {"family", "artifact_id", "revision"}));
  MemoryRef r;
  PC_ASSIGN_OR_RETURN(r.family, BodyString(j, "family", at));
  PC_ASSIGN_OR_RETURN(r.artifact_id, BodyString(j, "artifact_id", at));
  PC_ASSIGN_OR_RETURN(r.revision, BodyInt(j, "revision", at));
  return r;
}

Result<ExperienceContent> ExperienceProposalFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(BodyShape(j, at, {"situation", "action", "outcome", "lesson"},
                               {"situation", "action", "outcome", "lesson"}));
  ExperienceContent c;
  PC_ASSIGN_OR_RETURN(c.situation, BodyString(j, "situation", at));
  PC_ASSIGN_OR_RETURN(c.action, BodyString(j, "action", at));
  PC_ASSIGN_OR_RETURN(c.outcome, BodyString(j, "outcome", at));
  PC_ASSIGN_OR_RETURN(c.lesson, BodyString(j, "lesson", at));
  return c;
}

// source_refs, artifact_refs (both required) and target (optional, nullable).
Status EvidenceFrom(const Json& j, Evidence& e, std::optional<MemoryRef>& target) {
  if (!j["source_refs"].is_array())
    return ReviewFieldError("source_refs", "source_refs must be an array");
  if (!j["artifact_refs"].is_array())
    return ReviewFieldError("artifact_refs", "artifact_refs must be an array");
  for (size_t i = 0; i < j["source_refs"].size(); ++i) {
    const std::string at = "source_refs[" + std::to_string(i) + "]";
    const Json& s = j["source_refs"][i];
    PC_RETURN_IF_ERROR(BodyShape(s, at, {"name", "source_id"}, {"name", "source_id"}));
    SourceEvidence ev;
    PC_ASSIGN_OR_RETURN(ev.name, BodyString(s, "name", at));
    PC_ASSIGN_OR_RETURN(ev.source_id, BodyString(s, "source_id", at));
    e.sources.push_back(std::move(ev));
  }
  for (size_t i = 0; i < j["artifact_refs"].size(); ++i) {
    PC_ASSIGN_OR_RETURN(MemoryRef r, ArtifactRefFrom(j["artifact_refs"][i],
                                                     "artifact_refs[" + std::to_string(i) + "]"));
    e.artifacts.push_back(std::move(r));
  }
  if (j.contains("target") && !j["target"].is_null()) {
    PC_ASSIGN_OR_RETURN(MemoryRef t, ArtifactRefFrom(j["target"], "target"));
    target = std::move(t);
  }
  return Status::Ok();
}

Json ExperienceProposalJson(const ExperienceContent& c) {
  return Json{{"situation", c.situation},
              {"action", c.action},
              {"outcome", c.outcome},
              {"lesson", c.lesson}};
}

Json SkillProposalJson(const SkillContent& k) {
  return Json{{"name", k.name},
              {"description", k.description},
              {"instructions", k.instructions},
              {"validation", k.validation}};
}

Result<SkillContent> SkillProposalFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(BodyShape(j, at, {"name", "description", "instructions", "validation"},
                               {"name", "description", "instructions", "validation"}));
  SkillContent k;
  PC_ASSIGN_OR_RETURN(k.name, BodyString(j, "name", at));
  PC_ASSIGN_OR_RETURN(k.description, BodyString(j, "description", at));
  PC_ASSIGN_OR_RETURN(k.instructions, BodyString(j, "instructions", at));
  const Json& v = j["validation"];
  if (!v.is_array())
    return ReviewFieldError(at + ".validation", at + ".validation must be an array of strings");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      const std::string field = at + ".validation[" + std::to_string(i) + "]";
      return ReviewFieldError(field, field + " must be a string");
    }
    k.validation.push_back(v[i].get<std::string>());
  }
  return k;
}

Json SourcesJson(const Evidence& e) {
  Json out = Json::array();
  for (const SourceEvidence& s : e.sources)
    out.push_back(Json{{"name", s.name}, {"source_id", s.source_id}});
  return out;
}

Json ArtifactsJson(const Evidence& e) {
  Json out = Json::array();
  for (const MemoryRef& r : e.artifacts) out.push_back(ToJson(r));
  return out;
}

Json OptJson(const std::optional<std::string>& s) { return s ? Json(*s) : Json(); }

// A memory candidate's proposal (ours): the operation, and the entry version it revises.
Json MemoryProposalJson(const MemoryProposal& m) {
  Json j{{"op", m.op}, {"kind", m.kind}, {"text", m.text}};
  if (m.op != "add")
    j["target_entry"] =
        Json{{"entry_id", m.target_entry_id}, {"entry_version_id", m.target_version_id}};
  if (!m.triples.empty()) {  // the graph edges its approval adds (docs/graph.md)
    Json triples = Json::array();
    for (const GraphTriple& t : m.triples)
      triples.push_back(
          Json{{"subject", t.subject}, {"relation", t.relation}, {"object", t.object}});
    j["triples"] = std::move(triples);
  }
  return j;
}

// The spec's ArtifactCandidate.
Json CandidateJson(const ArtifactCandidate& c) {
  Json proposal = c.current.skill    ? SkillProposalJson(*c.current.skill)
                  : c.current.memory ? MemoryProposalJson(*c.current.memory)
                                     : ExperienceProposalJson(c.current.proposal);
  return Json{{"candidate_id", c.candidate_id},
              {"version", c.current.version},
              {"family", c.family},
              {"status", CandidateStatusName(c.status)},
              {"proposal", std::move(proposal)},
              {"source_refs", SourcesJson(c.current.evidence)},
              {"artifact_refs", ArtifactsJson(c.current.evidence)},
              {"target", c.current.target ? ToJson(*c.current.target) : Json()},
              {"reason", OptJson(c.current.reason)},
              {"result_artifact", c.result ? ToJson(*c.result) : Json()},
              {"decision_reason", OptJson(c.decision_reason)}};
}

Json GeneratedJson(const std::optional<ArtifactCandidate>& c) {
  if (!c) return Json{{"status", "no_op"}, {"candidate", Json()}};
  return Json{{"status", "pending"}, {"candidate", CandidateJson(*c)}};
}

// The spec's ExperienceArtifact.
Json ExperienceJson(const Experience& e) {
  return Json{{"artifact", ToJson(e.ref)},
              {"content", ExperienceProposalJson(e.content)},
              {"source_refs", SourcesJson(e.evidence)},
              {"artifact_refs", ArtifactsJson(e.evidence)}};
}

// The spec's SkillArtifact.
Json SkillJson(const Skill& k) {
  return Json{{"artifact", ToJson(k.ref)},
              {"content", SkillProposalJson(k.content)},
              {"source_refs", SourcesJson(k.evidence)},
              {"artifact_refs", ArtifactsJson(k.evidence)}};
}

std::string ReviewActor() {
  const Principal& who = CurrentPrincipal();
  return who.authenticated ? who.name : "api";
}

}  // namespace pc
