#include "wire/error_map.h"

#include <algorithm>

namespace pc {
namespace {

struct Row {
  Code code;
  int http;
  int exit;
};

// PowerContext's statuses (powercontext.openapi.yaml): every request the contract refuses is a
// 422, a stale state a 409, a missing dependency a 503. For a status, the first row is its code.
constexpr Row kTable[] = {
    {Code::kOk, 200, 0},
    {Code::kInvalidArgument, 422, 2},
    {Code::kTooLarge, 422, 5},
    {Code::kUnauthenticated, 401, 8},
    {Code::kPermissionDenied, 403, 8},
    {Code::kNotFound, 404, 3},
    {Code::kMethodNotAllowed, 405, 8},
    {Code::kConflict, 409, 4},
    {Code::kSourceConflict, 409, 4},
    {Code::kStoreNotEmpty, 409, 4},
    {Code::kNameTaken, 409, 4},
    {Code::kReviewOvertaken, 409, 4},
    {Code::kRevisionNotVisible, 409, 4},
    {Code::kCandidateConflict, 409, 4},
    {Code::kArtifactConflict, 409, 4},
    {Code::kExternalSkillChanged, 409, 4},
    {Code::kProjectConflict, 409, 4},
    {Code::kWorkstreamConflict, 409, 4},
    {Code::kScopeAlreadyGrouped, 409, 4},
    {Code::kScopeNotGrouped, 409, 4},
    {Code::kWorkspaceBindingConflict, 409, 4},
    {Code::kActivityEventConflict, 409, 4},
    {Code::kUnsupportedReportLocale, 422, 2},
    {Code::kUnsupportedReportFormat, 422, 2},
    {Code::kInvalidReportPeriod, 422, 2},
    {Code::kReportTooLarge, 413, 5},
    {Code::kNearDuplicate, 409, 4},
    {Code::kEvidenceRequired, 422, 2},
    {Code::kUnsupportedMediaType, 415, 2},
    {Code::kRateLimited, 429, 8},
    {Code::kInternal, 500, 1},
    {Code::kProviderUnavailable, 503, 7},
    {Code::kCapabilityUnavailable, 503, 6},
    {Code::kRegistryUnavailable, 503, 6},
    {Code::kGenerationUnavailable, 503, 6},
    {Code::kReportBusy, 503, 7},
    {Code::kProviderError, 502, 7},
    {Code::kUnavailable, 503, 7},  // after provider_unavailable: a bare 503 reads as that
};

}  // namespace

int HttpStatusFor(Code code) {
  for (const Row& r : kTable)
    if (r.code == code) return r.http;
  return 500;
}

Code CodeForHttpStatus(int http_status) {
  // The HTTP library's own 413 (a body over the route's limit), not a report's.
  if (http_status == 413) return Code::kTooLarge;
  for (const Row& r : kTable)
    if (r.http == http_status) return r.code;
  if (http_status == 400) return Code::kInvalidArgument;
  return http_status >= 500 ? Code::kInternal : Code::kInvalidArgument;
}

std::optional<int64_t> RetryAfterSeconds(const Status& s) {
  for (const Detail& d : s.details())
    if (d.key == "retry_after_seconds")
      if (const auto* v = std::get_if<int64_t>(&d.value)) return std::max<int64_t>(1, *v);
  return std::nullopt;
}

int ExitCodeFor(Code code) {
  for (const Row& r : kTable)
    if (r.code == code) return r.exit;
  return 1;
}

}  // namespace pc
