#include "common/status.h"

namespace pc {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid_argument";
    case Code::kUnauthenticated: return "unauthenticated";
    case Code::kPermissionDenied: return "permission_denied";
    case Code::kNotFound: return "not_found";
    case Code::kMethodNotAllowed: return "method_not_allowed";
    case Code::kConflict: return "conflict";
    case Code::kTooLarge: return "too_large";
    case Code::kCapabilityUnavailable: return "capability_unavailable";
    case Code::kRateLimited: return "rate_limited";
    case Code::kUnsupportedMediaType: return "unsupported_media_type";
    case Code::kInternal: return "internal";
    case Code::kProviderUnavailable: return "provider_unavailable";
    case Code::kProviderError: return "provider_error";
  }
  return "internal";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(CodeName(code_)) + ": " + message_;
}

}  // namespace pc
