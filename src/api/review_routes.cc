// The review routes (RFC 0050, docs/review.md): the spec's five artifact-candidates operations and
// the Experience slice (propose, generate, get), exactly their schemas both ways (unknown fields
// are refused at every level), and our Experience search. Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "auth/request_context.h"
#include "common/json_parse.h"

namespace pc {
namespace {

Status Bad(const std::string& field, const std::string& message) {
  return InvalidArgument(message).WithDetail("field", field);
}

Status Shape(const Json& j, const std::string& at, std::initializer_list<const char*> allowed,
             std::initializer_list<const char*> required) {
  const std::string prefix = at.empty() ? "" : at + ".";
  if (!j.is_object())
    return Bad(at.empty() ? "body" : at, (at.empty() ? "the body" : at) + " must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) return Bad(prefix + key, "unknown field \"" + prefix + key + "\"");
  }
  for (const char* r : required)
    if (!j.contains(r)) return Bad(prefix + r, prefix + r + " is required");
  return Status::Ok();
}

Result<std::string> Str(const Json& j, const char* name, const std::string& at) {
  const std::string field = (at.empty() ? "" : at + ".") + name;
  const Json& v = j.at(name);
  if (!v.is_string()) return Bad(field, field + " must be a string");
  return v.get<std::string>();
}

Result<std::optional<std::string>> OptStr(const Json& j, const char* name) {
  if (!j.contains(name) || j[name].is_null()) return std::optional<std::string>();
  PC_ASSIGN_OR_RETURN(std::string s, Str(j, name, ""));
  return std::optional<std::string>(std::move(s));
}

Result<int64_t> Int(const Json& j, const char* name, const std::string& at) {
  const std::string field = (at.empty() ? "" : at + ".") + name;
  const Json& v = j.at(name);
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
    return Bad(field, field + " must be an integer");
  return v.get<int64_t>();
}

Result<MemoryRef> RefFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(
      Shape(j, at, {"family", "artifact_id", "revision"}, {"family", "artifact_id", "revision"}));
  MemoryRef r;
  PC_ASSIGN_OR_RETURN(r.family, Str(j, "family", at));
  PC_ASSIGN_OR_RETURN(r.artifact_id, Str(j, "artifact_id", at));
  PC_ASSIGN_OR_RETURN(r.revision, Int(j, "revision", at));
  return r;
}

Result<ExperienceContent> ProposalFrom(const Json& j, const std::string& at) {
  PC_RETURN_IF_ERROR(Shape(j, at, {"situation", "action", "outcome", "lesson"},
                           {"situation", "action", "outcome", "lesson"}));
  ExperienceContent c;
  PC_ASSIGN_OR_RETURN(c.situation, Str(j, "situation", at));
  PC_ASSIGN_OR_RETURN(c.action, Str(j, "action", at));
  PC_ASSIGN_OR_RETURN(c.outcome, Str(j, "outcome", at));
  PC_ASSIGN_OR_RETURN(c.lesson, Str(j, "lesson", at));
  return c;
}

// source_refs, artifact_refs (both required) and target (optional, nullable).
Status EvidenceFrom(const Json& j, Evidence& e, std::optional<MemoryRef>& target) {
  if (!j["source_refs"].is_array()) return Bad("source_refs", "source_refs must be an array");
  if (!j["artifact_refs"].is_array()) return Bad("artifact_refs", "artifact_refs must be an array");
  for (size_t i = 0; i < j["source_refs"].size(); ++i) {
    const std::string at = "source_refs[" + std::to_string(i) + "]";
    const Json& s = j["source_refs"][i];
    PC_RETURN_IF_ERROR(Shape(s, at, {"name", "source_id"}, {"name", "source_id"}));
    SourceEvidence ev;
    PC_ASSIGN_OR_RETURN(ev.name, Str(s, "name", at));
    PC_ASSIGN_OR_RETURN(ev.source_id, Str(s, "source_id", at));
    e.sources.push_back(std::move(ev));
  }
  for (size_t i = 0; i < j["artifact_refs"].size(); ++i) {
    PC_ASSIGN_OR_RETURN(MemoryRef r,
                        RefFrom(j["artifact_refs"][i], "artifact_refs[" + std::to_string(i) + "]"));
    e.artifacts.push_back(std::move(r));
  }
  if (j.contains("target") && !j["target"].is_null()) {
    PC_ASSIGN_OR_RETURN(MemoryRef t, RefFrom(j["target"], "target"));
    target = std::move(t);
  }
  return Status::Ok();
}

Json ProposalJson(const ExperienceContent& c) {
  return Json{{"situation", c.situation},
              {"action", c.action},
              {"outcome", c.outcome},
              {"lesson", c.lesson}};
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
  return Json{{"candidate_id", c.candidate_id},
              {"version", c.current.version},
              {"family", c.family},
              {"status", CandidateStatusName(c.status)},
              {"proposal", c.current.memory ? MemoryProposalJson(*c.current.memory)
                                            : ProposalJson(c.current.proposal)},
              {"source_refs", SourcesJson(c.current.evidence)},
              {"artifact_refs", ArtifactsJson(c.current.evidence)},
              {"target", c.current.target ? ToJson(*c.current.target) : Json()},
              {"reason", OptJson(c.current.reason)},
              {"result_artifact", c.result ? ToJson(*c.result) : Json()},
              {"decision_reason", OptJson(c.decision_reason)}};
}

// The spec's ExperienceArtifact.
Json ExperienceJson(const Experience& e) {
  return Json{{"artifact", ToJson(e.ref)},
              {"content", ProposalJson(e.content)},
              {"source_refs", SourcesJson(e.evidence)},
              {"artifact_refs", ArtifactsJson(e.evidence)}};
}

std::string Actor() {
  const Principal& who = CurrentPrincipal();
  return who.authenticated ? who.name : "api";
}

Result<ApiResponse> Propose(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      Shape(j, "", {"scope_id", "proposal", "source_refs", "artifact_refs", "target", "reason"},
            {"scope_id", "proposal", "source_refs", "artifact_refs"}));
  ProposeExperienceRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, Str(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(r.proposal, ProposalFrom(j["proposal"], "proposal"));
  PC_RETURN_IF_ERROR(EvidenceFrom(j, r.evidence, r.target));
  PC_ASSIGN_OR_RETURN(r.reason, OptStr(j, "reason"));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.ProposeExperience(r, Actor()));
  return ApiResponse{201, CandidateJson(c)};
}

// The spec's GenerateExperienceRequest → GeneratedCandidateResponse: a pending candidate, or no_op.
Result<ApiResponse> Generate(ExperienceGenerator* svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(Shape(j, "", {"scope_id", "source_refs", "artifact_refs", "target", "reason"},
                           {"scope_id", "source_refs", "artifact_refs"}));
  GenerateExperienceRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, Str(j, "scope_id", ""));
  PC_RETURN_IF_ERROR(EvidenceFrom(j, r.evidence, r.target));
  PC_ASSIGN_OR_RETURN(r.reason, OptStr(j, "reason"));
  if (!svc)
    return Status(Code::kCapabilityUnavailable,
                  "generating an Experience is not available in this server");
  PC_ASSIGN_OR_RETURN(GeneratedExperience out, svc->Generate(r, "generate:" + Actor()));
  if (!out.candidate) return ApiResponse{200, Json{{"status", "no_op"}, {"candidate", Json()}}};
  return ApiResponse{200,
                     Json{{"status", "pending"}, {"candidate", CandidateJson(*out.candidate)}}};
}

Result<ApiResponse> GetExperience(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(Shape(j, "", {"scope_id", "artifact"}, {"scope_id", "artifact"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, Str(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(MemoryRef ref, RefFrom(j["artifact"], "artifact"));
  PC_ASSIGN_OR_RETURN(Experience e, svc.GetExperience(scope_id, ref));
  return ApiResponse{200, ExperienceJson(e)};
}

Result<ApiResponse> SearchExperience(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(Shape(j, "", {"scope_id", "query", "limit"}, {"scope_id", "query"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, Str(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(std::string query, Str(j, "query", ""));
  int64_t limit = 10;
  if (j.contains("limit") && !j["limit"].is_null()) {
    PC_ASSIGN_OR_RETURN(limit, Int(j, "limit", ""));
  }
  if (limit < 1 || limit > kMaxCandidatePage)
    return Bad("limit", "limit must be between 1 and 100");
  PC_ASSIGN_OR_RETURN(auto hits, svc.SearchExperience(scope_id, query, static_cast<int>(limit)));
  Json items = Json::array();
  for (const ExperienceHit& h : hits) {
    Json item = ExperienceJson(h.experience);
    item["score"] = h.score;
    items.push_back(std::move(item));
  }
  return ApiResponse{200, Json{{"experiences", items}}};
}

Result<ApiResponse> List(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      Shape(j, "", {"scope_id", "status", "family", "cursor", "limit"}, {"scope_id"}));
  ListCandidatesRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, Str(j, "scope_id", ""));
  if (j.contains("status")) {
    PC_ASSIGN_OR_RETURN(std::string s, Str(j, "status", ""));
    std::optional<CandidateStatus> status = CandidateStatusFrom(s);
    if (!status) return Bad("status", "status must be pending, approved or rejected");
    r.status = *status;
  }
  PC_ASSIGN_OR_RETURN(std::optional<std::string> family, OptStr(j, "family"));
  if (family) {
    if (*family != kExperienceFamily && *family != kSkillFamily &&
        *family != kMemoryCandidateFamily)
      return Bad("family",
                 "family must be experience or skill (or memory: ours, a flush's proposals)");
    r.family = *family;
  }
  PC_ASSIGN_OR_RETURN(r.cursor, OptStr(j, "cursor"));
  if (j.contains("limit")) {
    PC_ASSIGN_OR_RETURN(int64_t limit, Int(j, "limit", ""));
    if (limit < 1 || limit > kMaxCandidatePage)
      return Bad("limit", "limit must be between 1 and 100");
    r.limit = static_cast<int>(limit);
  }
  PC_ASSIGN_OR_RETURN(CandidatePage page, svc.List(r));
  Json items = Json::array();
  for (const ArtifactCandidate& c : page.items) items.push_back(CandidateJson(c));
  return ApiResponse{200, Json{{"candidates", items}, {"next_cursor", OptJson(page.next_cursor)}}};
}

Result<ApiResponse> Get(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(Shape(j, "", {"scope_id", "candidate_id"}, {"scope_id", "candidate_id"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, Str(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(std::string candidate_id, Str(j, "candidate_id", ""));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.Get(scope_id, candidate_id));
  return ApiResponse{200, CandidateJson(c)};
}

Result<ApiResponse> Approve(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(Shape(j, "", {"scope_id", "candidate_id", "expected_version"},
                           {"scope_id", "candidate_id", "expected_version"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, Str(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(std::string candidate_id, Str(j, "candidate_id", ""));
  PC_ASSIGN_OR_RETURN(int64_t expected, Int(j, "expected_version", ""));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.Approve(scope_id, candidate_id, expected, Actor()));
  return ApiResponse{200, CandidateJson(c)};
}

Result<ApiResponse> Reject(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(Shape(j, "", {"scope_id", "candidate_id", "expected_version", "reason"},
                           {"scope_id", "candidate_id", "expected_version", "reason"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, Str(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(std::string candidate_id, Str(j, "candidate_id", ""));
  PC_ASSIGN_OR_RETURN(int64_t expected, Int(j, "expected_version", ""));
  PC_ASSIGN_OR_RETURN(std::string reason, Str(j, "reason", ""));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.Reject(scope_id, candidate_id, expected, reason));
  return ApiResponse{200, CandidateJson(c)};
}

Result<ApiResponse> Revise(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(Shape(j, "",
                           {"scope_id", "candidate_id", "expected_version", "proposal",
                            "source_refs", "artifact_refs", "target", "reason"},
                           {"scope_id", "candidate_id", "expected_version", "proposal",
                            "source_refs", "artifact_refs"}));
  ReviseCandidateRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, Str(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(r.candidate_id, Str(j, "candidate_id", ""));
  PC_ASSIGN_OR_RETURN(r.expected_version, Int(j, "expected_version", ""));
  const Json& p = j["proposal"];
  if (p.is_object() && p.contains("text")) {  // a memory candidate's edit (ours): {kind, text}
    PC_RETURN_IF_ERROR(Shape(p, "proposal", {"kind", "text"}, {"kind", "text"}));
    PC_ASSIGN_OR_RETURN(std::string kind, Str(p, "kind", "proposal"));
    PC_ASSIGN_OR_RETURN(std::string text, Str(p, "text", "proposal"));
    r.memory_edit = std::make_pair(kind, text);
    // A memory candidate keeps its window's evidence: an edit names none.
    if (!j["source_refs"].empty() || !j["artifact_refs"].empty() ||
        (j.contains("target") && !j["target"].is_null()))
      return Bad("source_refs",
                 "a memory candidate keeps its evidence: give empty source_refs and artifact_refs "
                 "and no target when revising its kind and text");
  } else {
    PC_ASSIGN_OR_RETURN(r.proposal, ProposalFrom(p, "proposal"));
  }
  PC_RETURN_IF_ERROR(EvidenceFrom(j, r.evidence, r.target));
  PC_ASSIGN_OR_RETURN(r.reason, OptStr(j, "reason"));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.Revise(r, Actor()));
  return ApiResponse{200, CandidateJson(c)};
}

// Ours: the daily review by hand (docs/review.md), for one scope and day (default today).
Result<ApiResponse> RunDailyReview(DailyReviewService* svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "date"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(auto date, body.OptString("date"));
  if (!svc)
    return Status(Code::kCapabilityUnavailable, "the daily review is not available in this server");
  PC_ASSIGN_OR_RETURN(DailyReviewOutcome out,
                      svc->Run(scope_id, date.value_or(""), "review:" + Actor()));
  Json rejected = Json::array();
  for (const Rejection& r : out.rejected)
    rejected.push_back(Json{{"candidate", r.candidate_json}, {"reason", r.reason}});
  return ApiResponse{200, Json{{"date", out.date},
                               {"already_reviewed", out.already_reviewed},
                               {"sources_reviewed", out.sources_reviewed},
                               {"cursor", out.cursor},
                               {"experience_candidates", out.experience_candidates},
                               {"retire_candidates", out.retire_candidates},
                               {"handoff", out.handoff ? ToJson(*out.handoff) : Json()},
                               {"rejected", rejected}}};
}

}  // namespace

void AddReviewRoutes(Router& router, Services services) {
  ReviewService& r = services.review;
  router.Add("POST", "/v1/experience/propose",
             {"propose_experience", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(r, Propose));
  ExperienceGenerator* generate = services.generate;
  router.Add("POST", "/v1/experience/generate",
             {"generate_experience", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             [generate](const ApiRequest& req) { return Generate(generate, req); });
  router.Add("POST", "/v1/experience/get", {"get_experience", Permission::kRead, ScopeIn::kBody},
             Bind(r, GetExperience));
  router.Add("POST", "/v1/experience/search",
             {"search_experience", Permission::kRead, ScopeIn::kBody}, Bind(r, SearchExperience));
  router.Add("POST", "/v1/artifact-candidates/list",
             {"list_artifact_candidates", Permission::kRead, ScopeIn::kBody}, Bind(r, List));
  router.Add("POST", "/v1/artifact-candidates/get",
             {"get_artifact_candidate", Permission::kRead, ScopeIn::kBody}, Bind(r, Get));
  router.Add("POST", "/v1/artifact-candidates/approve",
             {"approve_artifact_candidate", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(r, Approve));
  router.Add("POST", "/v1/artifact-candidates/reject",
             {"reject_artifact_candidate", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(r, Reject));
  router.Add("POST", "/v1/artifact-candidates/revise",
             {"revise_artifact_candidate", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(r, Revise));
  DailyReviewService* daily = services.daily;
  router.Add("POST", "/v1/review/run", {"run_daily_review", Permission::kWrite, ScopeIn::kBody},
             [daily](const ApiRequest& req) { return RunDailyReview(daily, req); });
}

}  // namespace pc
