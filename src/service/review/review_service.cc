#include "service/review/review_service.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/clock.h"
#include "common/ids.h"
#include "common/utf8.h"
#include "model/canonical.h"
#include "model/citation.h"
#include "model/text_check.h"
#include "search/bm25.h"
#include "search/entity_graph.h"
#include "search/text_query.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/memory/commit.h"

namespace pc {
namespace {

// The first of `checks` that failed (all are pure: evaluating the rest changes nothing).
Status FirstError(std::initializer_list<Status> checks) {
  for (const Status& s : checks)
    if (!s.ok()) return s;
  return Status::Ok();
}

Status Bad(const std::string& field, const std::string& message) {
  return FieldError(field, message);
}

// 1 … max characters, valid UTF-8, saying something.
Status CheckChars(const std::string& field, const std::string& text, size_t max_chars) {
  PC_RETURN_IF_ERROR(CheckText(field, text, 4 * max_chars));
  std::optional<size_t> n = CountCodePoints(text);
  if (!n || *n > max_chars)
    return TooLarge(field + " is longer than " + std::to_string(max_chars) + " characters")
        .WithDetail("field", field);
  return Status::Ok();
}

// The spec's id pattern ^[\x21-\x7E]+$, 1 … 128 characters.
Status CheckPrintableId(const std::string& field, const std::string& id) {
  if (id.empty() || id.size() > kMaxCandidateIdChars)
    return Bad(field,
               field + " must be 1 to " + std::to_string(kMaxCandidateIdChars) + " characters");
  for (unsigned char ch : id)
    if (ch < 0x21 || ch > 0x7E)
      return Bad(field, field + " must be printable ASCII without spaces");
  return Status::Ok();
}

Status CheckExpectedVersion(int64_t v) {
  if (v < 1) return Bad("expected_version", "expected_version must be an integer of at least 1");
  return Status::Ok();
}

Status CheckProposal(const ExperienceContent& p) {
  PC_RETURN_IF_ERROR(CheckChars("proposal.situation", p.situation, kMaxExperienceFieldChars));
  PC_RETURN_IF_ERROR(CheckChars("proposal.action", p.action, kMaxExperienceFieldChars));
  PC_RETURN_IF_ERROR(CheckChars("proposal.outcome", p.outcome, kMaxExperienceFieldChars));
  return CheckChars("proposal.lesson", p.lesson, kMaxExperienceFieldChars);
}

Status CheckOptionalReason(const std::optional<std::string>& reason) {
  return reason ? CheckChars("reason", *reason, kMaxReviewReasonChars) : Status::Ok();
}

// "Experience" or "Skill": what a family's artifact is called in a message.
std::string FamilyTitle(const std::string& family) {
  return family == kSkillFamily ? "Skill" : "Experience";
}

// The spec's one-line text (model/text_check.h), too long being 413 as CheckChars says.
Status CheckOneLine(const std::string& field, const std::string& text, size_t max_chars) {
  PC_RETURN_IF_ERROR(CheckChars(field, text, max_chars));
  return CheckOneLineText(field, text, max_chars);
}

Status CheckSkillContent(const SkillContent& p) {
  PC_RETURN_IF_ERROR(CheckOneLine("proposal.name", p.name, kMaxSkillProposalNameChars));
  PC_RETURN_IF_ERROR(
      CheckOneLine("proposal.description", p.description, kMaxSkillProposalDescriptionChars));
  PC_RETURN_IF_ERROR(
      CheckChars("proposal.instructions", p.instructions, kMaxSkillInstructionsChars));
  if (p.validation.empty() || p.validation.size() > kMaxSkillValidationChecks)
    return Bad("proposal.validation", "proposal.validation must list 1 to " +
                                          std::to_string(kMaxSkillValidationChecks) +
                                          " observable checks of a successful use");
  for (size_t i = 0; i < p.validation.size(); ++i)
    PC_RETURN_IF_ERROR(CheckOneLine("proposal.validation[" + std::to_string(i) + "]",
                                    p.validation[i], kMaxSkillValidationChars));
  return Status::Ok();
}

// The shape of the evidence and target (no store): 1 … 32 references, no duplicates, and a
// target of `family` among the artifact references.
Status CheckEvidenceShape(const Evidence& e, const std::optional<MemoryRef>& target,
                          const std::string& family = kExperienceFamily) {
  const size_t n = e.sources.size() + e.artifacts.size();
  if (n == 0)
    return Bad(
        "source_refs",
        "a proposal needs at least one exact evidence reference (source_refs or artifact_refs)");
  if (n > kMaxCandidateEvidence)
    return Bad("source_refs", "at most " + std::to_string(kMaxCandidateEvidence) +
                                  " evidence references in all (source_refs and artifact_refs)");
  for (size_t i = 0; i < e.sources.size(); ++i) {
    const std::string at = "source_refs[" + std::to_string(i) + "]";
    if (e.sources[i].name != kContentSourceName)
      return Bad(at + ".name",
                 at + ".name must be \"" + kContentSourceName + "\" (the only source type)");
    PC_RETURN_IF_ERROR(CheckText(at + ".source_id", e.sources[i].source_id, 256));
    for (size_t j = 0; j < i; ++j)
      if (e.sources[j] == e.sources[i])
        return Bad(at, at + " repeats " + "source_refs[" + std::to_string(j) + "]");
  }
  for (size_t i = 0; i < e.artifacts.size(); ++i) {
    const std::string at = "artifact_refs[" + std::to_string(i) + "]";
    PC_RETURN_IF_ERROR(CheckPrintableId(at + ".family", e.artifacts[i].family));
    PC_RETURN_IF_ERROR(CheckPrintableId(at + ".artifact_id", e.artifacts[i].artifact_id));
    if (e.artifacts[i].revision < 1)
      return Bad(at + ".revision", at + ".revision must be at least 1");
    for (size_t j = 0; j < i; ++j)
      if (e.artifacts[j] == e.artifacts[i])
        return Bad(at, at + " repeats artifact_refs[" + std::to_string(j) + "]");
  }
  if (target) {
    PC_RETURN_IF_ERROR(CheckPrintableId("target.family", target->family));
    PC_RETURN_IF_ERROR(CheckPrintableId("target.artifact_id", target->artifact_id));
    if (target->family != family)
      return Bad("target.family", "a" + std::string(family == kSkillFamily ? " " : "n ") +
                                      FamilyTitle(family) + " proposal can only replace a" +
                                      (family == kSkillFamily ? " " : "n ") + FamilyTitle(family) +
                                      " (target.family \"" + family + "\")");
    if (target->revision < 1) return Bad("target.revision", "target.revision must be at least 1");
    if (std::find(e.artifacts.begin(), e.artifacts.end(), *target) == e.artifacts.end())
      return Bad(
          "target",
          "the target must also be among artifact_refs (it is the replaced revision's evidence)");
  }
  return Status::Ok();
}

// Every reference resolves in the scope: the source exists, the artifact revision exists and is
// the scope's; the target is the head of an artifact of `family` of the scope (artifact_conflict
// if it moved). `sources`, when given, receives the sources found, in the order cited.
Status CheckEvidenceInScope(ReadTxn& txn, const std::string& scope_id, const Evidence& e,
                            const std::optional<MemoryRef>& target,
                            std::vector<Source>* sources = nullptr,
                            const std::string& family = kExperienceFamily) {
  for (size_t i = 0; i < e.sources.size(); ++i) {
    PC_ASSIGN_OR_RETURN(std::optional<Source> s,
                        txn.FindSourceByPublicId(scope_id, e.sources[i].source_id));
    if (!s) {
      const std::string at = "source_refs[" + std::to_string(i) + "]";
      return Bad(at, at + ": the scope has no source \"" + e.sources[i].source_id + "\"");
    }
    if (sources) sources->push_back(std::move(*s));
  }
  for (size_t i = 0; i < e.artifacts.size(); ++i) {
    const MemoryRef& r = e.artifacts[i];
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, txn.FindArtifact(r.artifact_id));
    if (!a || a->scope_id != scope_id || a->family != r.family || r.revision > a->head_revision) {
      const std::string at = "artifact_refs[" + std::to_string(i) + "]";
      return Bad(at, at + ": the scope has no artifact revision " + FormatMemoryRef(r));
    }
  }
  if (target) {
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, txn.FindArtifact(target->artifact_id));
    if (!a || a->scope_id != scope_id || a->family != family)
      return Bad("target", "the scope has no " + FamilyTitle(family) + " " + target->artifact_id);
    if (a->head_revision != target->revision)
      return Status(Code::kArtifactConflict, "the target " + FormatMemoryRef(*target) +
                                                 " is no longer the head of its " +
                                                 FamilyTitle(family) + " (now revision " +
                                                 std::to_string(a->head_revision) + ")")
          .WithDetail("current_revision", a->head_revision);
  }
  return Status::Ok();
}

Status NoCandidate(const std::string& candidate_id) {
  return NotFound("the scope has no candidate " + candidate_id)
      .WithDetail("candidate_id", candidate_id);
}

// A pending candidate at exactly `expected` (candidate_conflict otherwise).
Status CheckPendingAt(const ArtifactCandidate& c, int64_t expected) {
  if (c.status != CandidateStatus::kPending)
    return Status(Code::kCandidateConflict, "candidate " + c.candidate_id + " is " +
                                                CandidateStatusName(c.status) +
                                                ": a decided candidate cannot be reviewed again")
        .WithDetail("current_version", c.current.version);
  if (c.current.version != expected)
    return Status(Code::kCandidateConflict, "candidate " + c.candidate_id + " is at version " +
                                                std::to_string(c.current.version) + ", not " +
                                                std::to_string(expected))
        .WithDetail("current_version", c.current.version);
  return Status::Ok();
}

// The scope and candidate of a review write (NotFound when either is missing).
Result<ArtifactCandidate> LoadCandidate(ReadTxn& txn, const std::string& scope_name,
                                        const std::string& candidate_id) {
  PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, scope_name));
  if (!scope) return NoCandidate(candidate_id);
  PC_ASSIGN_OR_RETURN(std::optional<ArtifactCandidate> c,
                      txn.FindCandidate(scope->scope_id, candidate_id));
  if (!c) return NoCandidate(candidate_id);
  return *c;
}

// A pending candidate of `family` whose first version is `v`, saved in `txn` once its evidence
// and target resolve in the scope named `scope_name`.
Result<ArtifactCandidate> NewCandidateIn(WriteTxn& txn, const std::string& scope_name,
                                         const std::string& family, const std::string& candidate_id,
                                         CandidateVersion v) {
  PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, scope_name));
  // Evidence lives in a scope: a scope nobody wrote to has none to cite.
  if (!scope)
    return Bad("source_refs", "the scope " + scope_name + " has no sources or artifacts to cite");
  PC_RETURN_IF_ERROR(
      CheckEvidenceInScope(txn, scope->scope_id, v.evidence, v.target, nullptr, family));
  ArtifactCandidate out;
  out.scope_id = scope->scope_id;
  out.candidate_id = candidate_id;
  out.family = family;
  out.status = CandidateStatus::kPending;
  out.created_at_ms = out.updated_at_ms = v.created_at_ms;
  out.current = std::move(v);
  PC_RETURN_IF_ERROR(txn.SaveCandidate(out, true));
  return out;
}

std::vector<std::string> Lineage(const Evidence& e) {
  std::vector<std::string> out;
  for (const SourceEvidence& s : e.sources) out.push_back("source:" + s.name + "/" + s.source_id);
  for (const MemoryRef& r : e.artifacts) out.push_back(FormatMemoryRef(r));
  return out;
}

}  // namespace

std::vector<ExperienceHit> RankExperiences(std::vector<Experience> heads,
                                           const std::vector<std::string>& query_terms,
                                           size_t limit) {
  const std::set<std::string> wanted(query_terms.begin(), query_terms.end());
  if (wanted.empty() || heads.empty()) return {};
  // BM25 (k1 1.2, b 0.75) with the statistics of these heads.
  std::vector<std::map<std::string, int>> tf(heads.size());
  std::vector<size_t> length(heads.size());
  std::map<std::string, int> df;
  double total = 0;
  for (size_t i = 0; i < heads.size(); ++i) {
    std::vector<std::string> terms = RankingTerms(ExperienceText(heads[i].content));
    length[i] = terms.size();
    total += static_cast<double>(terms.size());
    for (const std::string& t : terms)
      if (wanted.count(t) && tf[i][t]++ == 0) ++df[t];
  }
  const double n = static_cast<double>(heads.size());
  const Bm25 bm25(std::max(1.0, total / n));
  std::vector<ExperienceHit> hits;
  for (size_t i = 0; i < heads.size(); ++i) {
    if (tf[i].empty()) continue;
    double score = 0;
    for (const auto& [term, f] : tf[i]) {
      const double d = df[term];
      score += bm25.Term(PlusOneIdf(n, d), f, bm25.LengthNorm(static_cast<double>(length[i])));
    }
    hits.push_back({std::move(heads[i]), score});
  }
  std::stable_sort(hits.begin(), hits.end(), [](const ExperienceHit& a, const ExperienceHit& b) {
    return a.score > b.score;  // ties: newest first, the heads' order
  });
  if (hits.size() > limit) hits.resize(limit);
  return hits;
}

Status ReviewService::CheckProposeRequest(const ProposeExperienceRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  PC_RETURN_IF_ERROR(CheckProposal(req.proposal));
  PC_RETURN_IF_ERROR(CheckEvidenceShape(req.evidence, req.target));
  return CheckOptionalReason(req.reason);
}

Status ReviewService::CheckEvidenceRequest(const std::string& scope_id, const Evidence& evidence,
                                           const std::optional<MemoryRef>& target,
                                           const std::optional<std::string>& reason,
                                           const std::string& family) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_RETURN_IF_ERROR(CheckEvidenceShape(evidence, target, family));
  return CheckOptionalReason(reason);
}

Status ReviewService::CheckReason(const std::optional<std::string>& reason) {
  return CheckOptionalReason(reason);
}

Status ReviewService::CheckSkillProposal(const SkillContent& proposal) {
  return CheckSkillContent(proposal);
}

Status ReviewService::CheckProposeSkillRequest(const ProposeSkillRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  PC_RETURN_IF_ERROR(CheckSkillContent(req.proposal));
  PC_RETURN_IF_ERROR(CheckEvidenceShape(req.evidence, req.target, kSkillFamily));
  return CheckOptionalReason(req.reason);
}

Status ReviewService::CheckEvidenceIn(ReadTxn& txn, const std::string& scope_id,
                                      const Evidence& evidence,
                                      const std::optional<MemoryRef>& target,
                                      std::vector<Source>* sources, const std::string& family) {
  return CheckEvidenceInScope(txn, scope_id, evidence, target, sources, family);
}

Result<ArtifactCandidate> ReviewService::ProposeSkillIn(WriteTxn& txn,
                                                        const ProposeSkillRequest& req,
                                                        const std::string& actor,
                                                        const std::string& candidate_id,
                                                        int64_t now) {
  return NewCandidateIn(
      txn, req.scope_id, kSkillFamily, candidate_id,
      CandidateVersion{
          1, {}, std::nullopt, req.evidence, req.target, req.reason, actor, now, req.proposal});
}

Result<ArtifactCandidate> ReviewService::ProposeSkill(const ProposeSkillRequest& req,
                                                      const std::string& actor) {
  PC_RETURN_IF_ERROR(CheckProposeSkillRequest(req));
  ArtifactCandidate out;
  const std::string candidate_id = NewId(kCandidatePrefix);
  const int64_t now = NowMillis();
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out, ProposeSkillIn(txn, req, actor, candidate_id, now));
    return Status::Ok();
  }));
  return out;
}

Result<ArtifactCandidate> ReviewService::ProposeExperienceIn(WriteTxn& txn,
                                                             const ProposeExperienceRequest& req,
                                                             const std::string& actor,
                                                             const std::string& candidate_id,
                                                             int64_t now) {
  return NewCandidateIn(txn, req.scope_id, kExperienceFamily, candidate_id,
                        CandidateVersion{1, req.proposal, std::nullopt, req.evidence, req.target,
                                         req.reason, actor, now, std::nullopt});
}

Result<ArtifactCandidate> ReviewService::ProposeExperience(const ProposeExperienceRequest& req,
                                                           const std::string& actor) {
  PC_RETURN_IF_ERROR(CheckProposeRequest(req));
  ArtifactCandidate out;
  const std::string candidate_id = NewId(kCandidatePrefix);
  const int64_t now = NowMillis();
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out, ProposeExperienceIn(txn, req, actor, candidate_id, now));
    return Status::Ok();
  }));
  return out;
}

Result<ArtifactCandidate> ReviewService::Get(const std::string& scope_id,
                                             const std::string& candidate_id) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_RETURN_IF_ERROR(CheckPrintableId("candidate_id", candidate_id));
  ArtifactCandidate out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out, LoadCandidate(txn, scope_id, candidate_id));
    return Status::Ok();
  }));
  return out;
}

Result<CandidatePage> ReviewService::List(const ListCandidatesRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  if (!req.family.empty() && req.family != kExperienceFamily && req.family != kSkillFamily &&
      req.family != kMemoryCandidateFamily)
    return Bad("family", "family must be \"experience\", \"skill\" or \"memory\"");
  if (req.cursor) PC_RETURN_IF_ERROR(CheckPrintableId("cursor", *req.cursor));
  if (req.limit < 1 || req.limit > kMaxCandidatePage)
    return Bad("limit", "limit must be between 1 and " + std::to_string(kMaxCandidatePage));
  CandidatePage page;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    page = CandidatePage{};
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, req.scope_id));
    if (!scope) return Status::Ok();
    PC_ASSIGN_OR_RETURN(page.items, txn.ListCandidates(scope->scope_id, req.status, req.family,
                                                       req.cursor.value_or(""), req.limit + 1));
    if (page.items.size() > static_cast<size_t>(req.limit)) {
      page.items.resize(static_cast<size_t>(req.limit));
      page.next_cursor = page.items.back().candidate_id;
    }
    return Status::Ok();
  }));
  return page;
}

Result<ArtifactCandidate> ReviewService::Revise(const ReviseCandidateRequest& req,
                                                const std::string& actor) {
  if (req.memory_edit) return ReviseMemory(req, actor);
  const std::string family = req.skill ? kSkillFamily : kExperienceFamily;
  return Decide(
      req.scope_id, req.candidate_id, req.expected_version,
      FirstError({req.skill ? CheckSkillContent(*req.skill) : CheckProposal(req.proposal),
                  CheckEvidenceShape(req.evidence, req.target, family),
                  CheckOptionalReason(req.reason)}),
      [&](WriteTxn& txn, ArtifactCandidate& out, int64_t now) -> Status {
        if (out.family == kMemoryCandidateFamily)
          return Bad("proposal", "a memory candidate is revised with {kind, text}, not an " +
                                     FamilyTitle(family) + " proposal");
        if (out.family != family)
          return Bad("proposal", "candidate " + out.candidate_id + " is a" +
                                     (out.family == kSkillFamily ? " " : "n ") +
                                     FamilyTitle(out.family) + " candidate: revise it with a" +
                                     (out.family == kSkillFamily ? " " : "n ") +
                                     FamilyTitle(out.family) + " proposal");
        PC_RETURN_IF_ERROR(
            CheckEvidenceInScope(txn, out.scope_id, req.evidence, req.target, nullptr, family));
        out.current = CandidateVersion{req.expected_version + 1,
                                       req.skill ? ExperienceContent{} : req.proposal,
                                       std::nullopt,
                                       req.evidence,
                                       req.target,
                                       req.reason,
                                       actor,
                                       now,
                                       req.skill};
        out.updated_at_ms = now;
        return txn.SaveCandidate(out, true);
      });
}

Result<ArtifactCandidate> ReviewService::Decide(const std::string& scope_id,
                                                const std::string& candidate_id,
                                                int64_t expected_version, const Status& more,
                                                const Decision& decide) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_RETURN_IF_ERROR(CheckPrintableId("candidate_id", candidate_id));
  PC_RETURN_IF_ERROR(CheckExpectedVersion(expected_version));
  PC_RETURN_IF_ERROR(more);
  const int64_t now = NowMillis();
  ArtifactCandidate out;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out, LoadCandidate(txn, scope_id, candidate_id));
    PC_RETURN_IF_ERROR(CheckPendingAt(out, expected_version));
    return decide(txn, out, now);
  }));
  return out;
}

Result<ArtifactCandidate> ReviewService::Approve(const std::string& scope_id,
                                                 const std::string& candidate_id,
                                                 int64_t expected_version,
                                                 const std::string& actor) {
  return Decide(scope_id, candidate_id, expected_version, Status::Ok(),
                [&](WriteTxn& txn, ArtifactCandidate& out, int64_t now) -> Status {
                  if (out.family == kMemoryCandidateFamily) {
                    PC_ASSIGN_OR_RETURN(out.result, CommitMemoryProposal(txn, out, actor));
                    out.status = CandidateStatus::kApproved;
                    out.updated_at_ms = now;
                    return txn.SaveCandidate(out, false);
                  }
                  if (out.family != kExperienceFamily && out.family != kSkillFamily)
                    return Status(Code::kCapabilityUnavailable,
                                  "approving a " + out.family + " candidate is not supported");
                  PC_ASSIGN_OR_RETURN(out.result, CommitReviewed(txn, out, actor, now));
                  out.status = CandidateStatus::kApproved;
                  out.updated_at_ms = now;
                  return txn.SaveCandidate(out, false);
                });
}

Result<MemoryRef> ReviewService::CommitReviewed(WriteTxn& txn, const ArtifactCandidate& c,
                                                const std::string& actor, int64_t now) {
  const CandidateVersion& v = c.current;
  const bool skill = c.family == kSkillFamily;
  if (skill && !v.skill) return Internal("skill candidate " + c.candidate_id + " has no proposal");
  // The target's head compare-and-set: a proposal made against an older head is refused.
  PC_RETURN_IF_ERROR(
      CheckEvidenceInScope(txn, c.scope_id, Evidence{}, v.target, nullptr, c.family));
  MemoryRef ref;
  if (v.target) {
    ref = MemoryRef{c.family, v.target->artifact_id, v.target->revision + 1};
  } else {
    PC_ASSIGN_OR_RETURN(Artifact a,
                        skill ? txn.CreateSkill(c.scope_id) : txn.CreateExperience(c.scope_id));
    ref = MemoryRef{c.family, a.artifact_id, 1};
  }
  const std::string reason =
      "approved candidate " + c.candidate_id + "@" + std::to_string(v.version);
  Status committed;
  if (skill) {
    committed =
        txn.CommitSkill(Skill{ref, *v.skill, v.evidence, actor, now}, reason, Lineage(v.evidence));
  } else {
    committed = txn.CommitExperience(Experience{ref, v.proposal, v.evidence, actor, now}, reason,
                                     Lineage(v.evidence));
  }
  if (committed.code() == Code::kConflict)  // another approval moved the target's head
    return Status(Code::kArtifactConflict, committed.message());
  PC_RETURN_IF_ERROR(committed);
  return ref;
}

Result<ArtifactCandidate> ReviewService::Reject(const std::string& scope_id,
                                                const std::string& candidate_id,
                                                int64_t expected_version,
                                                const std::string& reason) {
  return Decide(scope_id, candidate_id, expected_version,
                CheckChars("reason", reason, kMaxReviewReasonChars),
                [&](WriteTxn& txn, ArtifactCandidate& out, int64_t now) -> Status {
                  out.status = CandidateStatus::kRejected;
                  out.decision_reason = reason;
                  out.updated_at_ms = now;
                  return txn.SaveCandidate(out, false);
                });
}

namespace {

// The entry a revise or retire proposal names, still active at the version the model was shown;
// else artifact_conflict ("nothing was `done`").
Result<ManifestItem> TargetAsProposed(WriteTxn& txn, const Artifact& memory,
                                      const MemoryProposal& m, const char* done) {
  PC_ASSIGN_OR_RETURN(
      std::optional<ManifestItem> now,
      txn.FindManifestItem(memory.artifact_id, memory.head_revision, m.target_entry_id));
  if (!now || !now->active || now->version.entry_version_id != m.target_version_id)
    return Status(Code::kArtifactConflict,
                  "entry " + m.target_entry_id +
                      " changed since the candidate was proposed; nothing was " + done)
        .WithDetail("current_revision", memory.head_revision);
  return *now;
}

}  // namespace

// A memory candidate's operation as a memory revision, in `txn`: the entry it revises must still
// be at the version the model was shown, and nothing active may already say the same (both
// artifact_conflict: re-flush or revise by hand; nothing is merged).
Result<MemoryRef> ReviewService::CommitMemoryProposal(WriteTxn& txn, const ArtifactCandidate& c,
                                                      const std::string& actor) {
  const MemoryProposal& m = *c.current.memory;
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory,
                      txn.FindDefaultArtifact(c.scope_id, kMemoryFamily));
  if (!memory) return Internal("the scope of candidate " + c.candidate_id + " has no memory");
  if (m.op == "retire") {  // the daily review's near-duplicate proposal (docs/review.md)
    PC_ASSIGN_OR_RETURN(ManifestItem now, TargetAsProposed(txn, *memory, m, "retired"));
    const std::string reason =
        "approved candidate " + c.candidate_id + "@" + std::to_string(c.current.version);
    PC_ASSIGN_OR_RETURN(
        WriteOutcome w,
        CommitOneChange(
            txn, *memory, actor, reason,
            OneChange{ChangeOp::kRetire, now.version, m.target_version_id, {}, std::nullopt}));
    return w.memory;
  }
  PC_ASSIGN_OR_RETURN(std::string hash, ContentHash(m.kind, m.text));
  PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> dup,
                      txn.FindActiveByHash(memory->artifact_id, hash));
  if (dup)
    return Status(Code::kArtifactConflict,
                  "an active entry already says this: " + dup->version.entry_id)
        .WithDetail("duplicate_of", dup->version.entry_id);
  // The write gates hold for an approval as for any write: under reject, a near-duplicate that
  // appeared since the flush refuses it (409 near_duplicate; the candidate stays pending).
  PC_ASSIGN_OR_RETURN(WritePolicy policy, ScopePolicy(txn, c.scope_id, limits_.policy));
  PC_RETURN_IF_ERROR(Reconcile(txn, policy.reconcile, *memory, m.text, std::nullopt, "",
                               m.op == "revise" ? m.target_entry_id : "")
                         .status());
  OneChange change;
  EntryVersion& v = change.version;
  std::optional<EntryVersion> revised;  // for its valid_until
  if (m.op == "revise") {
    PC_ASSIGN_OR_RETURN(ManifestItem now, TargetAsProposed(txn, *memory, m, "merged"));
    revised = now.version;
    change.op = ChangeOp::kRevise;
    v.entry_id = m.target_entry_id;
    v.version = now.version.version + 1;
    v.previous_version_id = m.target_version_id;
    change.from_version_id = m.target_version_id;
  } else {
    change.op = ChangeOp::kAdd;
    v.entry_id = NewId(kEntryPrefix);
    v.version = 1;
  }
  v.entry_version_id = NewId(kEntryVersionPrefix);
  v.kind = m.kind;
  v.text = m.text;
  v.content_hash = hash;
  v.source_refs = m.source_refs;
  v.reason = "approved candidate " + c.candidate_id + "@" + std::to_string(c.current.version);
  v.valid_until_ms = DefaultValidUntil(policy, v.kind, revised ? &*revised : nullptr, NowMillis());
  std::vector<GraphEdge> edges;  // the triples proposed with it (docs/graph.md)
  for (const GraphTriple& t : m.triples) edges.push_back(MakeGraphEdge(t, v));
  PC_ASSIGN_OR_RETURN(WriteOutcome w,
                      CommitOneChange(txn, *memory, actor, v.reason, change, edges));
  return w.memory;
}

Result<ArtifactCandidate> ReviewService::ReviseMemory(const ReviseCandidateRequest& req,
                                                      const std::string& actor) {
  const std::string& kind =
      req.memory_edit->first;  // named, not bound: lambdas capture them (clang 14)
  const std::string& text = req.memory_edit->second;
  return Decide(
      req.scope_id, req.candidate_id, req.expected_version,
      FirstError({CheckKind(kind), CheckText("proposal.text", text, limits_.max_entry_bytes),
                  CheckOptionalReason(req.reason)}),
      [&](WriteTxn& txn, ArtifactCandidate& out, int64_t now) -> Status {
        if (out.family != kMemoryCandidateFamily)
          return Bad("proposal", "only a memory candidate is revised with {kind, text}");
        if (out.current.memory->op == "retire")
          return Bad("proposal", "a retire proposal has no text to revise: approve or reject it");
        CandidateVersion next = out.current;
        next.version = req.expected_version + 1;
        next.memory->kind = kind;
        next.memory->text = text;
        // The model's triples described its text, not the reviewer's (docs/graph.md).
        next.memory->triples.clear();
        next.reason = req.reason;
        next.actor = actor;
        next.created_at_ms = now;
        out.current = next;
        out.updated_at_ms = now;
        return txn.SaveCandidate(out, true);
      });
}

namespace {

// An approved revision of a reviewed family by exact reference, read with `find` (404 when the
// scope has no such revision).
template <typename T>
Result<T> GetReviewed(Store& store, const std::string& scope_id, const MemoryRef& ref,
                      const std::string& family,
                      Result<std::optional<T>> (ReadTxn::*find)(const std::string&, int64_t)) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_RETURN_IF_ERROR(CheckPrintableId("artifact.family", ref.family));
  PC_RETURN_IF_ERROR(CheckPrintableId("artifact.artifact_id", ref.artifact_id));
  if (ref.revision < 1) return Bad("artifact.revision", "artifact.revision must be at least 1");
  if (ref.family != family)
    return Bad("artifact.family", "artifact.family must be \"" + family + "\"");
  std::optional<T> out;
  PC_RETURN_IF_ERROR(store.Read([&](ReadTxn& txn) -> Status {
    out.reset();
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, scope_id));
    if (!scope) return Status::Ok();
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, txn.FindArtifact(ref.artifact_id));
    if (!a || a->scope_id != scope->scope_id) return Status::Ok();
    PC_ASSIGN_OR_RETURN(out, (txn.*find)(ref.artifact_id, ref.revision));
    return Status::Ok();
  }));
  if (!out)
    return NotFound("the scope has no " + FamilyTitle(family) + " revision " +
                    FormatMemoryRef(ref));
  return *out;
}

}  // namespace

Result<Experience> ReviewService::GetExperience(const std::string& scope_id, const MemoryRef& ref) {
  return GetReviewed<Experience>(store_, scope_id, ref, kExperienceFamily,
                                 &ReadTxn::FindExperience);
}

Result<Skill> ReviewService::GetSkill(const std::string& scope_id, const MemoryRef& ref) {
  return GetReviewed<Skill>(store_, scope_id, ref, kSkillFamily, &ReadTxn::FindSkill);
}

Result<std::vector<ExperienceHit>> ReviewService::SearchExperience(const std::string& scope_id,
                                                                   const std::string& query,
                                                                   int limit) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_RETURN_IF_ERROR(CheckText("query", query, 4000));
  if (limit < 1 || limit > kMaxCandidatePage)
    return Bad("limit", "limit must be between 1 and " + std::to_string(kMaxCandidatePage));
  std::vector<Experience> heads;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    heads.clear();
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, scope_id));
    if (!scope) return Status::Ok();
    PC_ASSIGN_OR_RETURN(heads, txn.ListExperienceHeads(scope->scope_id, kMaxExperienceScan));
    return Status::Ok();
  }));
  return RankExperiences(std::move(heads), AnalyzeQuery(query).terms, static_cast<size_t>(limit));
}

}  // namespace pc
