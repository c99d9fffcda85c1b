// The checks every Work record shares (RFC 1223, "Claim evidence"): texts and lists within the
// spec's limits, and each claim's basis agreeing with its evidence. Each error names the field;
// the citations to resolve in the scope are collected for one read.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "service/work/work_records.h"

namespace pc {

inline constexpr size_t kMaxWorkItems = 64;          // facts, state, lists of texts
inline constexpr size_t kMaxClaimEvidence = 31;      // one citation is left for the boundary
inline constexpr size_t kMaxCheckEvidence = 32;      // a TaskCheck's evidence
inline constexpr size_t kMaxProducedArtifacts = 32;  // a TaskOutcome's produced_artifacts

Status CheckSourceId(const std::string& source_id);
// 1 (with `required`) or 0 to kMaxWorkItems texts, each 1–8192 characters and not blank.
Status CheckTexts(const std::vector<std::string>& texts, const std::string& field, bool required);
// A declared claim carries no evidence; a verified one 1 to `max_evidence` citations, added to
// `resolve` (each must resolve in the scope).
Status CheckClaimEvidence(ClaimBasis basis, const std::vector<HandoffCitation>& evidence,
                          size_t max_evidence, const std::string& field,
                          std::vector<NamedCitation>& resolve);
Status CheckClaim(const WorkClaim& c, const std::string& field,
                  std::vector<NamedCitation>& resolve);
Status CheckClaims(const std::vector<WorkClaim>& claims, const std::string& field, bool required,
                   std::vector<NamedCitation>& resolve);

}  // namespace pc
