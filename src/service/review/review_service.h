// Review (RFC 0050, docs/review.md): the inbox of proposals of `review` families and the
// Experience family (RFC 0051's {situation, action, outcome, lesson}), its first consumer.
//   propose: a pending candidate (version 1) with its exact evidence; never an artifact.
//   revise: a complete replacement proposal as the next immutable version, still pending.
//   approve: the current version becomes an Experience revision, and the candidate approved, in
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
// Approved Experience heads a search ranks at most (the newest of the scope).
inline constexpr int kMaxExperienceScan = 2000;

struct ProposeExperienceRequest {
  std::string scope_id;
  ExperienceContent proposal;
  Evidence evidence;
  std::optional<MemoryRef> target;
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
  static Status CheckEvidenceRequest(const std::string& scope_id, const Evidence& evidence,
                                     const std::optional<MemoryRef>& target,
                                     const std::optional<std::string>& reason);
  // Every reference resolves in the scope (`scope_id` internal): the source exists, the artifact
  // revision exists; the target is its Experience's head (artifact_conflict if it moved).
  // `sources`, when given, receives the cited sources as read (in the order cited).
  static Status CheckEvidenceIn(ReadTxn& txn, const std::string& scope_id, const Evidence& evidence,
                                const std::optional<MemoryRef>& target,
                                std::vector<Source>* sources = nullptr);
  static Result<ArtifactCandidate> ProposeExperienceIn(WriteTxn& txn,
                                                       const ProposeExperienceRequest& req,
                                                       const std::string& actor,
                                                       const std::string& candidate_id,
                                                       int64_t now);
  Result<ArtifactCandidate> Get(const std::string& scope_id, const std::string& candidate_id);
  Result<CandidatePage> List(const ListCandidatesRequest& req);
  Result<ArtifactCandidate> Revise(const ReviseCandidateRequest& req, const std::string& actor);
  Result<ArtifactCandidate> Approve(const std::string& scope_id, const std::string& candidate_id,
                                    int64_t expected_version, const std::string& actor);
  Result<ArtifactCandidate> Reject(const std::string& scope_id, const std::string& candidate_id,
                                   int64_t expected_version, const std::string& reason);
  // An approved Experience revision by exact reference (404 when the scope has no such revision).
  Result<Experience> GetExperience(const std::string& scope_id, const MemoryRef& ref);
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
