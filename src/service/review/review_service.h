// Review (RFC 0050, docs/review.md): the inbox of proposals of `review` families: the Experience
// family (RFC 0051's {situation, action, outcome, lesson}) and managed Skills (RFC 0051's {name,
// description, instructions, validation}; docs/skills.md).
//   propose: a pending candidate (version 1) with its exact evidence; never an artifact.
//   revise: a complete replacement proposal as the next immutable version, still pending.
//   approve: the current version becomes an Experience (Skill) revision, and the candidate
//   approved, in
//     one transaction; compare-and-set on the candidate's version and on the target's head.
//   reject: terminal, with the reviewer's reason; no artifact.
// Pending and rejected candidates never reach search or prepared context; approved Experience
// heads do (SearchExperience, ContextService).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/review.h"
#include "service/memory/memory_service.h"
#include "store/store.h"

namespace pc {

// The spec's limits (ArtifactCandidate, ExperienceProposal, ListArtifactCandidatesRequest).
inline constexpr size_t kMaxExperienceFieldChars = 8000;
inline constexpr size_t kMaxCandidateEvidence = 32;  // source_refs and artifact_refs together
inline constexpr size_t kMaxReviewReasonChars = 2000;
inline constexpr size_t kMaxCandidateIdChars = 128;
inline constexpr int kDefaultCandidatePage = 50;
inline constexpr int kMaxCandidatePage = 100;
// The spec's SkillProposal limits.
inline constexpr size_t kMaxSkillProposalNameChars = 128;
inline constexpr size_t kMaxSkillProposalDescriptionChars = 2000;
inline constexpr size_t kMaxSkillInstructionsChars = 32000;
inline constexpr size_t kMaxSkillValidationChecks = 32;
inline constexpr size_t kMaxSkillValidationChars = 2000;
// Approved Experience heads a search ranks at most (the newest of the scope).
inline constexpr int kMaxExperienceScan = 2000;

struct ProposeExperienceRequest {
  std::string scope_id;
  ExperienceContent proposal;
  Evidence evidence;
  std::optional<MemoryRef> target;
  std::optional<std::string> reason;
};

struct ProposeSkillRequest {
  std::string scope_id;
  SkillContent proposal;
  Evidence evidence;
  std::optional<MemoryRef> target;  // the Skill head this replaces (also among evidence.artifacts)
  std::optional<std::string> reason;
};

struct ReviseCandidateRequest {
  std::string scope_id;
  std::string candidate_id;
  int64_t expected_version = 0;
  ExperienceContent proposal;
  Evidence evidence;
  std::optional<MemoryRef> target;
  std::optional<std::string> reason;
  // A memory candidate's edit (its kind and text; the operation and evidence stay).
  std::optional<std::pair<std::string, std::string>> memory_edit;
  // A Skill candidate's complete replacement proposal (instead of `proposal`).
  std::optional<SkillContent> skill;
};

struct ListCandidatesRequest {
  std::string scope_id;
  CandidateStatus status = CandidateStatus::kPending;
  std::string family;  // empty: every family
  std::optional<std::string> cursor;
  int limit = kDefaultCandidatePage;
};

struct CandidatePage {
  std::vector<ArtifactCandidate> items;
  std::optional<std::string> next_cursor;
};

struct ExperienceHit {
  Experience experience;
  double score = 0;
};

class ReviewService {
 public:
  // `limits`: the entry size and the write gates' defaults a memory candidate's approval keeps.
  explicit ReviewService(Store& store, ServiceLimits limits = {})
      : store_(store), limits_(std::move(limits)) {}

  Result<ArtifactCandidate> ProposeExperience(const ProposeExperienceRequest& req,
                                              const std::string& actor);
  // The same in two steps, for a caller that proposes inside a transaction of its own (the daily
  // review): the checks that need no store, then the candidate saved in `txn` (safe to run again).
  static Status CheckProposeRequest(const ProposeExperienceRequest& req);
  // The parts of a proposal that are not its content (a generation's request): the scope's name,
  // 1 … 32 distinct evidence references, a target among them, the reason.
  // `family`: the proposal's, which a target must be of.
  static Status CheckEvidenceRequest(const std::string& scope_id, const Evidence& evidence,
                                     const std::optional<MemoryRef>& target,
                                     const std::optional<std::string>& reason,
                                     const std::string& family = kExperienceFamily);
  // A proposal's reason, when given: 1 … 2,000 characters saying something.
  static Status CheckReason(const std::optional<std::string>& reason);
  // A Skill proposal's content against the spec's SkillProposal (field "proposal.…").
  static Status CheckSkillProposal(const SkillContent& proposal);
  static Status CheckProposeSkillRequest(const ProposeSkillRequest& req);
  // Every reference resolves in the scope (`scope_id` internal): the source exists, the artifact
  // revision exists; the target is its Experience's head (artifact_conflict if it moved).
  // `sources`, when given, receives the cited sources as read (in the order cited).
  static Status CheckEvidenceIn(ReadTxn& txn, const std::string& scope_id, const Evidence& evidence,
                                const std::optional<MemoryRef>& target,
                                std::vector<Source>* sources = nullptr,
                                const std::string& family = kExperienceFamily);
  static Result<ArtifactCandidate> ProposeExperienceIn(WriteTxn& txn,
                                                       const ProposeExperienceRequest& req,
                                                       const std::string& actor,
                                                       const std::string& candidate_id,
                                                       int64_t now);
  // A pending managed Skill candidate (no model: the caller wrote the content). The In form saves
  // it in a caller's transaction (an import captures its source in the same one); it checks the
  // evidence in the scope, not the request (CheckProposeSkillRequest).
  Result<ArtifactCandidate> ProposeSkill(const ProposeSkillRequest& req, const std::string& actor);
  static Result<ArtifactCandidate> ProposeSkillIn(WriteTxn& txn, const ProposeSkillRequest& req,
                                                  const std::string& actor,
                                                  const std::string& candidate_id, int64_t now);
  Result<ArtifactCandidate> Get(const std::string& scope_id, const std::string& candidate_id);
  Result<CandidatePage> List(const ListCandidatesRequest& req);
  Result<ArtifactCandidate> Revise(const ReviseCandidateRequest& req, const std::string& actor);
  Result<ArtifactCandidate> Approve(const std::string& scope_id, const std::string& candidate_id,
                                    int64_t expected_version, const std::string& actor);
  Result<ArtifactCandidate> Reject(const std::string& scope_id, const std::string& candidate_id,
                                   int64_t expected_version, const std::string& reason);
  // An approved Experience revision by exact reference (404 when the scope has no such revision).
  Result<Experience> GetExperience(const std::string& scope_id, const MemoryRef& ref);
  // An approved managed Skill revision by exact reference (404 when the scope has none).
  Result<Skill> GetSkill(const std::string& scope_id, const MemoryRef& ref);
  // The scope's current approved Experience heads that match `query`, best first.
  Result<std::vector<ExperienceHit>> SearchExperience(const std::string& scope_id,
                                                      const std::string& query, int limit);

 private:
  // What every change of a pending candidate (revise, approve, reject) shares: the ids and the
  // version checked, then `more` (the first failed check of the request's own fields), one write
  // in which the candidate is loaded and must still be pending at `expected_version`, and
  // `decide` (given the time of the change) changes and saves it.
  using Decision = std::function<Status(WriteTxn&, ArtifactCandidate&, int64_t now)>;
  Result<ArtifactCandidate> Decide(const std::string& scope_id, const std::string& candidate_id,
                                   int64_t expected_version, const Status& more,
                                   const Decision& decide);
  Result<MemoryRef> CommitMemoryProposal(WriteTxn& txn, const ArtifactCandidate& c,
                                         const std::string& actor);
  Result<ArtifactCandidate> ReviseMemory(const ReviseCandidateRequest& req,
                                         const std::string& actor);
  // Approval of an Experience or Skill candidate: its current version as the next revision of
  // its target (or of a new artifact), in `txn`.
  Result<MemoryRef> CommitReviewed(WriteTxn& txn, const ArtifactCandidate& c,
                                   const std::string& actor, int64_t now);

  Store& store_;
  ServiceLimits limits_;
};

// Ranks `heads` against a query's ranking terms (AnalyzeQuery(query).terms: BM25 over
// PowerContext's tokenizer, the same text units as full-text search; every CJK character a unit):
// those that match, best first, at most `limit`. Pure; ContextService reads the heads in its own
// snapshot and calls this.
std::vector<ExperienceHit> RankExperiences(std::vector<Experience> heads,
                                           const std::vector<std::string>& query_terms,
                                           size_t limit);

}  // namespace pc
