#include "api/edge_guard.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace pc {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// An IPv4 or IPv6 literal ("[::1]" for IPv6, as in a Host header).
bool IsIpLiteral(const std::string& host, bool* loopback) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, host.c_str(), buf) == 1) {
    *loopback = buf[0] == 127;
    return true;
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']' &&
      inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), buf) == 1) {
    static const unsigned char kLoop[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    *loopback = std::equal(buf, buf + 16, kLoop);
    return true;
  }
  return false;
}

bool IsWildcard(const std::string& listen_host) {
  return listen_host.empty() || listen_host == "0.0.0.0" || listen_host == "::" || listen_host == "[::]";
}

// The listen host as a Host header writes it ("::1" → "[::1]").
std::string AsHostHeaderName(const std::string& listen_host) {
  if (listen_host.find(':') != std::string::npos && listen_host.front() != '[')
    return "[" + Lower(listen_host) + "]";
  return Lower(listen_host);
}

bool HostAllowed(const EdgePolicy& policy, const std::string& name) {
  if (name.empty()) return false;
  if (name == "localhost") return true;
  bool loopback = false;
  const bool literal = IsIpLiteral(name, &loopback);
  if (literal && loopback) return true;
  if (!IsWildcard(policy.listen_host) && name == AsHostHeaderName(policy.listen_host)) return true;
  // On every interface, any address literal of this machine names it; a DNS name never does
  // unless allowed, since a rebinding page sends its own name.
  if (literal && IsWildcard(policy.listen_host)) return true;
  for (const std::string& allowed : policy.allowed_hosts)
    if (allowed == "*" || Lower(allowed) == name) return true;
  return false;
}

// The host part of a Host header, lower-case, without the port ("[::1]:8787" → "[::1]",
// "LocalHost:80" → "localhost").
std::string HostName(std::string_view authority) {
  authority = Trim(authority);
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    return close == std::string_view::npos ? "" : Lower(authority.substr(0, close + 1));
  }
  return Lower(authority.substr(0, authority.find(':')));
}

Status Forbidden(std::string message) { return Status(Code::kPermissionDenied, std::move(message)); }

}  // namespace


Status CheckEdge(const EdgePolicy& policy, const EdgeRequest& r) {
  const std::string host = HostName(r.host);
  if (!HostAllowed(policy, host))
    return Forbidden(r.host.empty() ? "the Host header is missing"
                                    : "the Host header \"" + std::string(Trim(r.host)) +
                                          "\" does not name this server (add it to allowed_hosts)")
        .WithDetail("host", std::string(Trim(r.host)));
  if (r.has_origin) {
    const std::string origin = Lower(Trim(r.origin));
    bool allowed = false;
    for (const std::string& o : policy.allowed_origins) allowed = allowed || Lower(o) == origin;
    // The server's own origin (a page it serves, e.g. a console): scheme://<the Host header>.
    for (const char* scheme : {"http://", "https://"})
      allowed = allowed || origin == scheme + Lower(Trim(r.host));
    if (!allowed)
      return Forbidden("requests from origin \"" + std::string(Trim(r.origin)) +
                       "\" are not allowed (add it to allowed_origins)")
          .WithDetail("origin", std::string(Trim(r.origin)));
  }
  if (r.content_length_headers > 1 || (r.content_length_headers > 0 && r.has_transfer_encoding))
    return InvalidArgument("a request may have one Content-Length and no Transfer-Encoding with it");
  if (r.has_body) {
    std::string media = Lower(Trim(std::string_view(r.content_type).substr(0, r.content_type.find(';'))));
    if (media != "application/json")
      return Status(Code::kUnsupportedMediaType,
                    "request bodies must be JSON, sent with Content-Type: application/json" +
                        (r.content_type.empty() ? std::string(" (none was given)")
                                                : " (not " + std::string(Trim(r.content_type)) + ")"))
          .WithDetail("content_type", std::string(Trim(r.content_type)));
  }
  return Status::Ok();
}

}  // namespace pc
