// The review routes (RFC 0050, docs/review.md): the spec's five artifact-candidates operations,
// the Experience slice (propose, generate, get) and the managed Skill slice (propose, generate,
// get; docs/skills.md), exactly their schemas both ways (api/review_codec.h), and our Experience
// search. Decode, call the service, encode.
#include <nlohmann/json.hpp>

#include "api/review_codec.h"
#include "api/router.h"
#include "common/json_parse.h"

namespace pc {
namespace {

Result<ApiResponse> Propose(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"scope_id", "proposal", "source_refs", "artifact_refs", "target", "reason"},
                {"scope_id", "proposal", "source_refs", "artifact_refs"}));
  ProposeExperienceRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(r.proposal, ExperienceProposalFrom(j["proposal"], "proposal"));
  PC_RETURN_IF_ERROR(EvidenceFrom(j, r.evidence, r.target));
  PC_ASSIGN_OR_RETURN(r.reason, BodyOptString(j, "reason"));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.ProposeExperience(r, ReviewActor()));
  return ApiResponse{201, CandidateJson(c)};
}

// The spec's GenerateExperienceRequest → GeneratedCandidateResponse: a pending candidate, or no_op.
Result<ApiResponse> Generate(ExperienceGenerator* svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "",
                               {"scope_id", "source_refs", "artifact_refs", "target", "reason"},
                               {"scope_id", "source_refs", "artifact_refs"}));
  GenerateExperienceRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, BodyString(j, "scope_id", ""));
  PC_RETURN_IF_ERROR(EvidenceFrom(j, r.evidence, r.target));
  PC_ASSIGN_OR_RETURN(r.reason, BodyOptString(j, "reason"));
  if (!svc)
    return Status(Code::kCapabilityUnavailable,
                  "generating an Experience is not available in this server");
  PC_ASSIGN_OR_RETURN(GeneratedExperience out, svc->Generate(r, "generate:" + ReviewActor()));
  return ApiResponse{200, GeneratedJson(out.candidate)};
}

Result<ApiResponse> GetExperience(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"scope_id", "artifact"}, {"scope_id", "artifact"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(MemoryRef ref, ArtifactRefFrom(j["artifact"], "artifact"));
  PC_ASSIGN_OR_RETURN(Experience e, svc.GetExperience(scope_id, ref));
  return ApiResponse{200, ExperienceJson(e)};
}

Result<ApiResponse> SearchExperience(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"scope_id", "query", "limit"}, {"scope_id", "query"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(std::string query, BodyString(j, "query", ""));
  int64_t limit = 10;
  if (j.contains("limit") && !j["limit"].is_null()) {
    PC_ASSIGN_OR_RETURN(limit, BodyInt(j, "limit", ""));
  }
  if (limit < 1 || limit > kMaxCandidatePage)
    return ReviewFieldError("limit", "limit must be between 1 and 100");
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
      BodyShape(j, "", {"scope_id", "status", "family", "cursor", "limit"}, {"scope_id"}));
  ListCandidatesRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, BodyString(j, "scope_id", ""));
  if (j.contains("status")) {
    PC_ASSIGN_OR_RETURN(std::string s, BodyString(j, "status", ""));
    std::optional<CandidateStatus> status = CandidateStatusFrom(s);
    if (!status) return ReviewFieldError("status", "status must be pending, approved or rejected");
    r.status = *status;
  }
  PC_ASSIGN_OR_RETURN(std::optional<std::string> family, BodyOptString(j, "family"));
  if (family) {
    if (*family != kExperienceFamily && *family != kSkillFamily &&
        *family != kMemoryCandidateFamily)
      return ReviewFieldError(
          "family", "family must be experience or skill (or memory: ours, a flush's proposals)");
    r.family = *family;
  }
  PC_ASSIGN_OR_RETURN(r.cursor, BodyOptString(j, "cursor"));
  if (j.contains("limit")) {
    PC_ASSIGN_OR_RETURN(int64_t limit, BodyInt(j, "limit", ""));
    if (limit < 1 || limit > kMaxCandidatePage)
      return ReviewFieldError("limit", "limit must be between 1 and 100");
    r.limit = static_cast<int>(limit);
  }
  PC_ASSIGN_OR_RETURN(CandidatePage page, svc.List(r));
  Json items = Json::array();
  for (const ArtifactCandidate& c : page.items) items.push_back(CandidateJson(c));
  return ApiResponse{200, Json{{"candidates", items}, {"next_cursor", OptJson(page.next_cursor)}}};
}

Result<ApiResponse> Get(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"scope_id", "candidate_id"}, {"scope_id", "candidate_id"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(std::string candidate_id, BodyString(j, "candidate_id", ""));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.Get(scope_id, candidate_id));
  return ApiResponse{200, CandidateJson(c)};
}

Result<ApiResponse> Approve(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"scope_id", "candidate_id", "expected_version"},
                               {"scope_id", "candidate_id", "expected_version"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(std::string candidate_id, BodyString(j, "candidate_id", ""));
  PC_ASSIGN_OR_RETURN(int64_t expected, BodyInt(j, "expected_version", ""));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c,
                      svc.Approve(scope_id, candidate_id, expected, ReviewActor()));
  return ApiResponse{200, CandidateJson(c)};
}

Result<ApiResponse> Reject(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"scope_id", "candidate_id", "expected_version", "reason"},
                               {"scope_id", "candidate_id", "expected_version", "reason"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(std::string candidate_id, BodyString(j, "candidate_id", ""));
  PC_ASSIGN_OR_RETURN(int64_t expected, BodyInt(j, "expected_version", ""));
  PC_ASSIGN_OR_RETURN(std::string reason, BodyString(j, "reason", ""));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.Reject(scope_id, candidate_id, expected, reason));
  return ApiResponse{200, CandidateJson(c)};
}

Result<ApiResponse> Revise(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "",
                               {"scope_id", "candidate_id", "expected_version", "proposal",
                                "source_refs", "artifact_refs", "target", "reason"},
                               {"scope_id", "candidate_id", "expected_version", "proposal",
                                "source_refs", "artifact_refs"}));
  ReviseCandidateRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(r.candidate_id, BodyString(j, "candidate_id", ""));
  PC_ASSIGN_OR_RETURN(r.expected_version, BodyInt(j, "expected_version", ""));
  const Json& p = j["proposal"];
  if (p.is_object() && p.contains("text")) {  // a memory candidate's edit (ours): {kind, text}
    PC_RETURN_IF_ERROR(BodyShape(p, "proposal", {"kind", "text"}, {"kind", "text"}));
    PC_ASSIGN_OR_RETURN(std::string kind, BodyString(p, "kind", "proposal"));
    PC_ASSIGN_OR_RETURN(std::string text, BodyString(p, "text", "proposal"));
    r.memory_edit = std::make_pair(kind, text);
    // A memory candidate keeps its window's evidence: an edit names none.
    if (!j["source_refs"].empty() || !j["artifact_refs"].empty() ||
        (j.contains("target") && !j["target"].is_null()))
      return ReviewFieldError(
          "source_refs",
          "a memory candidate keeps its evidence: give empty source_refs and artifact_refs "
          "and no target when revising its kind and text");
  } else if (p.is_object() && p.contains("instructions")) {  // a Skill's SkillProposal
    PC_ASSIGN_OR_RETURN(SkillContent k, SkillProposalFrom(p, "proposal"));
    r.skill = std::move(k);
  } else {
    PC_ASSIGN_OR_RETURN(r.proposal, ExperienceProposalFrom(p, "proposal"));
  }
  PC_RETURN_IF_ERROR(EvidenceFrom(j, r.evidence, r.target));
  PC_ASSIGN_OR_RETURN(r.reason, BodyOptString(j, "reason"));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.Revise(r, ReviewActor()));
  return ApiResponse{200, CandidateJson(c)};
}

Result<ApiResponse> ProposeSkill(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"scope_id", "proposal", "source_refs", "artifact_refs", "target", "reason"},
                {"scope_id", "proposal", "source_refs", "artifact_refs"}));
  ProposeSkillRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(r.proposal, SkillProposalFrom(j["proposal"], "proposal"));
  PC_RETURN_IF_ERROR(EvidenceFrom(j, r.evidence, r.target));
  PC_ASSIGN_OR_RETURN(r.reason, BodyOptString(j, "reason"));
  PC_ASSIGN_OR_RETURN(ArtifactCandidate c, svc.ProposeSkill(r, ReviewActor()));
  return ApiResponse{201, CandidateJson(c)};
}

// The spec's GenerateSkillRequest → GeneratedCandidateResponse.
Result<ApiResponse> GenerateSkill(SkillGenerator* svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(
      BodyShape(j, "", {"scope_id", "origin", "source_refs", "artifact_refs", "target", "reason"},
                {"scope_id", "origin", "source_refs", "artifact_refs"}));
  GenerateSkillRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(r.origin, BodyString(j, "origin", ""));
  PC_RETURN_IF_ERROR(EvidenceFrom(j, r.evidence, r.target));
  PC_ASSIGN_OR_RETURN(r.reason, BodyOptString(j, "reason"));
  if (!svc) {
    PC_RETURN_IF_ERROR(CheckGenerateSkillRequest(r));
    return Status(Code::kGenerationUnavailable,
                  "generating a managed Skill is not available in "
                  "this server");
  }
  PC_ASSIGN_OR_RETURN(GeneratedSkill out, svc->Generate(r, "generate:" + ReviewActor()));
  return ApiResponse{200, GeneratedJson(out.candidate)};
}

Result<ApiResponse> GetSkill(ReviewService& svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "", {"scope_id", "artifact"}, {"scope_id", "artifact"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(MemoryRef ref, ArtifactRefFrom(j["artifact"], "artifact"));
  PC_ASSIGN_OR_RETURN(Skill k, svc.GetSkill(scope_id, ref));
  return ApiResponse{200, SkillJson(k)};
}

// The spec's ImportExternalSkillRequest → GeneratedCandidateResponse.
Result<ApiResponse> ImportSkill(SkillGenerator* svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Json j, req.TakeJsonBody());
  PC_RETURN_IF_ERROR(BodyShape(j, "",
                               {"scope_id", "external_skill_id", "fingerprint", "mode", "reason"},
                               {"scope_id", "external_skill_id", "fingerprint", "mode"}));
  ImportSkillRequest r;
  PC_ASSIGN_OR_RETURN(r.scope_id, BodyString(j, "scope_id", ""));
  PC_ASSIGN_OR_RETURN(r.external_skill_id, BodyString(j, "external_skill_id", ""));
  PC_ASSIGN_OR_RETURN(r.fingerprint, BodyString(j, "fingerprint", ""));
  PC_ASSIGN_OR_RETURN(r.mode, BodyString(j, "mode", ""));
  PC_ASSIGN_OR_RETURN(r.reason, BodyOptString(j, "reason"));
  if (!svc) return ExternalSkillRegistryUnavailable();
  PC_ASSIGN_OR_RETURN(GeneratedSkill out, svc->Import(r, "import:" + ReviewActor()));
  return ApiResponse{200, GeneratedJson(out.candidate)};
}

// Ours: the daily review by hand (docs/review.md), for one scope and day (default today).
Result<ApiResponse> RunDailyReview(DailyReviewService* svc, const ApiRequest& req) {
  PC_ASSIGN_OR_RETURN(Body body, ParseBody(req, {"scope_id", "date"}));
  PC_ASSIGN_OR_RETURN(std::string scope_id, body.String("scope_id"));
  PC_ASSIGN_OR_RETURN(auto date, body.OptString("date"));
  if (!svc)
    return Status(Code::kCapabilityUnavailable, "the daily review is not available in this server");
  PC_ASSIGN_OR_RETURN(DailyReviewOutcome out,
                      svc->Run(scope_id, date.value_or(""), "review:" + ReviewActor()));
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
  router.Add("POST", "/v1/skill/propose",
             {"propose_skill", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             Bind(r, ProposeSkill));
  SkillGenerator* skills = services.skill_generate;
  router.Add("POST", "/v1/skill/generate",
             {"generate_skill", Permission::kWrite, ScopeIn::kBody, BodySize::kLarge},
             [skills](const ApiRequest& req) { return GenerateSkill(skills, req); });
  router.Add("POST", "/v1/skill/get", {"get_skill", Permission::kRead, ScopeIn::kBody},
             Bind(r, GetSkill));
  router.Add("POST", "/v1/external-skills/import",
             {"import_external_skill", Permission::kWrite, ScopeIn::kBody},
             [skills](const ApiRequest& req) { return ImportSkill(skills, req); });
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
