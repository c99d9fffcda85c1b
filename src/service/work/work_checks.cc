#include "service/work/work_checks.h"

#include "common/utf8.h"
#include "service/core/validation.h"
#include "service/handoff/handoff_content.h"

namespace pc {
namespace {

constexpr size_t kMaxSourceIdChars = 256;

std::string At(const std::string& field, size_t i) { return field + "[" + std::to_string(i) + "]"; }

}  // namespace

Status CheckSourceId(const std::string& source_id) {
  return CheckName(source_id, "source_id", kMaxSourceIdChars);
}

Status CheckTexts(const std::vector<std::string>& texts, const std::string& field, bool required) {
  if ((required && texts.empty()) || texts.size() > kMaxWorkItems)
    return FieldError(field, field + " must hold " + (required ? "1" : "0") + " to " +
                                 std::to_string(kMaxWorkItems) + " items");
  for (size_t i = 0; i < texts.size(); ++i)
    PC_RETURN_IF_ERROR(CheckHandoffText(At(field, i), texts[i]));
  return Status::Ok();
}

Status CheckClaimEvidence(ClaimBasis basis, const std::vector<HandoffCitation>& evidence,
                          size_t max_evidence, const std::string& field,
                          std::vector<NamedCitation>& resolve) {
  const std::string at = field + ".evidence";
  if (basis == ClaimBasis::kDeclared && !evidence.empty())
    return FieldError(at, field +
                              " is declared but carries evidence: a claim with evidence is "
                              "verified (basis \"verified\"), a declared one has none");
  if (basis == ClaimBasis::kVerified && evidence.empty())
    return FieldError(at, field +
                              " is verified but has no evidence: cite at least one exact "
                              "source, artifact or memory citation of this scope");
  if (evidence.size() > max_evidence)
    return FieldError(at, at + " holds more than " + std::to_string(max_evidence) + " citations");
  for (size_t i = 0; i < evidence.size(); ++i) {
    PC_RETURN_IF_ERROR(CheckHandoffCitation(evidence[i], At(at, i)));
    resolve.push_back({At(at, i), evidence[i]});
  }
  return Status::Ok();
}

Status CheckClaim(const WorkClaim& c, const std::string& field,
                  std::vector<NamedCitation>& resolve) {
  PC_RETURN_IF_ERROR(CheckHandoffText(field + ".text", c.text));
  return CheckClaimEvidence(c.basis, c.evidence, kMaxClaimEvidence, field, resolve);
}

Status CheckClaims(const std::vector<WorkClaim>& claims, const std::string& field, bool required,
                   std::vector<NamedCitation>& resolve) {
  if ((required && claims.empty()) || claims.size() > kMaxWorkItems)
    return FieldError(field, field + " must hold " + (required ? "1" : "0") + " to " +
                                 std::to_string(kMaxWorkItems) + " claims");
  for (size_t i = 0; i < claims.size(); ++i)
    PC_RETURN_IF_ERROR(CheckClaim(claims[i], At(field, i), resolve));
  return Status::Ok();
}

}  // namespace pc
