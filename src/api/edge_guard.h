// The one guard at the edge of every HTTP route (/v1, /mcp, /health …), before any handler runs:
//   - Host must name this server: a loopback name (localhost, 127.0.0.1, [::1]), the listen host,
//     or one of `allowed_hosts` ("*" allows any, e.g. behind a reverse proxy that checks it). A
//     page elsewhere that rebinds its DNS name to 127.0.0.1 sends its own name, and is refused
//     (403).
//   - A request with an Origin (a browser's) must come from this server's own origin or one of
//     `allowed_origins` (default: none), else 403: no web page can read or write memory.
//   - A body must be application/json (else 415): an HTML form posts text/plain or
//     application/x-www-form-urlencoded without a CORS preflight.
//   - Content-Length once, only digits, and never with Transfer-Encoding: no request smuggling.
//   - Header names are tokens and values hold no control character but tab (no NUL, no obs-fold
//     continuation), and the Host is `name[:port]` and nothing else.
//   - The path has no encoded '/' (%2F): it would route as a separator once decoded.
// Authentication (the security issue) builds on this guard.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

struct EdgePolicy {
  std::string listen_host;                   // as configured: 127.0.0.1, ::1, 0.0.0.0, a name …
  std::vector<std::string> allowed_hosts;    // host names or addresses, without port; "*" = any
  std::vector<std::string> allowed_origins;  // exact origins, e.g. https://console.example:8443
};

// What the guard looks at in a request (header values as sent; absent = empty).
struct EdgeRequest {
  std::string method;
  std::string host;
  std::string origin;
  bool has_origin = false;
  std::string content_type;
  size_t content_length_headers = 0;  // how many Content-Length headers
  std::string content_length;         // its value
  std::string target;                 // the request target as sent (path and query, not decoded)
  bool headers_malformed = false;     // a folded header line or a NUL, seen in the raw bytes
  // Every header's name and value as the library read them.
  std::vector<std::pair<std::string, std::string>> headers;
  bool has_transfer_encoding = false;
  bool has_body = false;  // a Content-Length above 0, or a Transfer-Encoding
};

// Ok, or the refusal: PermissionDenied (403), UnsupportedMediaType (415), InvalidArgument (400).
Status CheckEdge(const EdgePolicy& policy, const EdgeRequest& request);

}  // namespace pc
