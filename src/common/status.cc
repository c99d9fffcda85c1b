#include "common/status.h"

namespace pc {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "ok";
    case Code::kInvalidArgument:
      return "invalid_request";
    case Code::kUnauthenticated:
      return "unauthorized";
    case Code::kPermissionDenied:
      return "permission_denied";
    case Code::kNotFound:
      return "not_found";
    case Code::kMethodNotAllowed:
      return "method_not_allowed";
    case Code::kConflict:
      return "revision_conflict";
    case Code::kSourceConflict:
      return "source_conflict";
    case Code::kStoreNotEmpty:
      return "store_not_empty";
    case Code::kNameTaken:
      return "name_taken";
    case Code::kReviewOvertaken:
      return "review_overtaken";
    case Code::kRevisionNotVisible:
      return "revision_not_visible";
    case Code::kCandidateConflict:
      return "candidate_conflict";
    case Code::kArtifactConflict:
      return "artifact_conflict";
    case Code::kExternalSkillChanged:
      return "external_skill_changed";
    case Code::kProjectConflict:
      return "project_conflict";
    case Code::kWorkstreamConflict:
      return "workstream_conflict";
    case Code::kScopeAlreadyGrouped:
      return "scope_already_grouped";
    case Code::kScopeNotGrouped:
      return "scope_not_grouped";
    case Code::kWorkspaceBindingConflict:
      return "workspace_binding_conflict";
    case Code::kActivityEventConflict:
      return "activity_event_conflict";
    case Code::kReportTooLarge:
      return "handoff_report_too_large";
    case Code::kReportBusy:
      return "handoff_report_busy";
    case Code::kUnsupportedReportLocale:
      return "unsupported_report_locale";
    case Code::kUnsupportedReportFormat:
      return "unsupported_report_format";
    case Code::kInvalidReportPeriod:
      return "invalid_report_period";
    case Code::kNearDuplicate:
      return "near_duplicate";
    case Code::kEvidenceRequired:
      return "evidence_required";
    case Code::kTooLarge:
      return "too_large";
    case Code::kCapabilityUnavailable:
      return "capability_unavailable";
    case Code::kRegistryUnavailable:
      return "external_skill_registry_unavailable";
    case Code::kGenerationUnavailable:
      return "generation_unavailable";
    case Code::kRateLimited:
      return "rate_limited";
    case Code::kUnsupportedMediaType:
      return "unsupported_media_type";
    case Code::kInternal:
      return "internal";
    case Code::kProviderUnavailable:
      return "provider_unavailable";
    case Code::kProviderError:
      return "provider_error";
    case Code::kUnavailable:
      return "unavailable";
  }
  return "internal";
}

const std::vector<Code>& AllCodes() {
  static const std::vector<Code> kCodes = {Code::kOk,
                                           Code::kInvalidArgument,
                                           Code::kUnauthenticated,
                                           Code::kPermissionDenied,
                                           Code::kNotFound,
                                           Code::kMethodNotAllowed,
                                           Code::kConflict,
                                           Code::kSourceConflict,
                                           Code::kStoreNotEmpty,
                                           Code::kNameTaken,
                                           Code::kReviewOvertaken,
                                           Code::kRevisionNotVisible,
                                           Code::kCandidateConflict,
                                           Code::kArtifactConflict,
                                           Code::kExternalSkillChanged,
                                           Code::kProjectConflict,
                                           Code::kWorkstreamConflict,
                                           Code::kScopeAlreadyGrouped,
                                           Code::kScopeNotGrouped,
                                           Code::kWorkspaceBindingConflict,
                                           Code::kActivityEventConflict,
                                           Code::kReportTooLarge,
                                           Code::kReportBusy,
                                           Code::kUnsupportedReportLocale,
                                           Code::kUnsupportedReportFormat,
                                           Code::kInvalidReportPeriod,
                                           Code::kNearDuplicate,
                                           Code::kEvidenceRequired,
                                           Code::kTooLarge,
                                           Code::kUnsupportedMediaType,
                                           Code::kCapabilityUnavailable,
                                           Code::kRegistryUnavailable,
                                           Code::kGenerationUnavailable,
                                           Code::kRateLimited,
                                           Code::kInternal,
                                           Code::kProviderUnavailable,
                                           Code::kProviderError,
                                           Code::kUnavailable};
  return kCodes;
}

std::optional<Code> CodeFromName(std::string_view name) {
  for (Code c : AllCodes())
    if (name == CodeName(c)) return c;
  return std::nullopt;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(CodeName(code_)) + ": " + message_;
}

}  // namespace pc
