#include "wire/error_map.h"

namespace pc {
namespace {

struct Row {
  Code code;
  int http;
  int exit;
};

constexpr Row kTable[] = {
    {Code::kOk, 200, 0},
    {Code::kInvalidArgument, 400, 2},
    {Code::kUnauthenticated, 401, 8},
    {Code::kPermissionDenied, 403, 8},
    {Code::kNotFound, 404, 3},
    {Code::kMethodNotAllowed, 405, 8},
    {Code::kConflict, 409, 4},
    {Code::kTooLarge, 413, 5},
    {Code::kUnsupportedMediaType, 415, 2},
    {Code::kCapabilityUnavailable, 422, 6},
    {Code::kRateLimited, 429, 8},
    {Code::kInternal, 500, 1},
    {Code::kProviderUnavailable, 503, 7},
    {Code::kProviderError, 502, 7},
};

}  // namespace

int HttpStatusFor(Code code) {
  for (const Row& r : kTable)
    if (r.code == code) return r.http;
  return 500;
}

Code CodeForHttpStatus(int http_status) {
  for (const Row& r : kTable)
    if (r.http == http_status) return r.code;
  return http_status >= 500 ? Code::kInternal : Code::kInvalidArgument;
}

int ExitCodeFor(Code code) {
  for (const Row& r : kTable)
    if (r.code == code) return r.exit;
  return 1;
}

}  // namespace pc
