#include "api/edge_guard.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/ascii.h"

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
  return listen_host.empty() || listen_host == "0.0.0.0" || listen_host == "::" ||
         listen_host == "[::]";
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
// "LocalHost:80" → "localhost"); empty unless the header is exactly `host[:port]` (RFC 9110 §7.2:
// a name of letters, digits, '-', '.', '_', '~', or a bracketed IPv6 literal; a port of digits).
// "127.0.0.1:1@evil" names no host, so it never passes as 127.0.0.1.
std::string HostName(std::string_view authority) {
  authority = Trim(authority);
  std::string_view name = authority, port;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return "";
    name = authority.substr(0, close + 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return "";
    port = rest.empty() ? rest : rest.substr(1);
    for (char c : name.substr(1, name.size() - 2))
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return "";
  } else {
    const size_t colon = authority.find(':');
    name = authority.substr(0, colon);
    port = colon == std::string_view::npos ? std::string_view() : authority.substr(colon + 1);
    for (unsigned char c : name)
      if (!std::isalnum(c) && c != '-' && c != '.' && c != '_' && c != '~') return "";
  }
  if (authority.size() != name.size() && (!AllAsciiDigits(port) || port.size() > 5)) return "";
  return Lower(name);
}

// RFC 9110 §5.6.2: tchar.
bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && !std::strchr("!#$%&'*+-.^_`|~", c)) return false;
  return true;
}

// RFC 9110 §5.5: no control characters but HTAB (a NUL, or the CR LF of an obs-fold).
bool IsFieldValue(std::string_view s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  return true;
}

Status Forbidden(std::string message) {
  return Status(Code::kPermissionDenied, std::move(message));
}

}  // namespace

Status CheckEdge(const EdgePolicy& policy, const EdgeRequest& r) {
  if (r.headers_malformed)
    return InvalidArgument(
        "a header name must be a token and its value hold no control character "
        "(no NUL, no line folding)");
  for (const auto& [name, value] : r.headers)
    if (!IsToken(name) || !IsFieldValue(value))
      return InvalidArgument(
          "a header name must be a token and its value hold no control character "
          "(no NUL, no line folding)");
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
    return InvalidArgument(
        "a request may have one Content-Length and no Transfer-Encoding with it");
  if (r.content_length_headers == 1 && !AllAsciiDigits(Trim(r.content_length)))
    return InvalidArgument("Content-Length must be a number of bytes")
        .WithDetail("content_length", std::string(Trim(r.content_length)));
  {
    const std::string_view path = std::string_view(r.target).substr(0, r.target.find('?'));
    for (size_t at = path.find('%'); at != std::string_view::npos; at = path.find('%', at + 1))
      if (path.size() > at + 2 && path[at + 1] == '2' &&
          (path[at + 2] == 'f' || path[at + 2] == 'F'))
        return InvalidArgument(
            "an encoded '/' (%2F) is not accepted in a path: name a scope with a '/' "
            "by its server id (scp_…), or in the body or the query");
  }
  if (r.has_body) {
    std::string media =
        Lower(Trim(std::string_view(r.content_type).substr(0, r.content_type.find(';'))));
    if (media != "application/json")
      return Status(
                 Code::kUnsupportedMediaType,
                 "request bodies must be JSON, sent with Content-Type: application/json" +
                     (r.content_type.empty() ? std::string(" (none was given)")
                                             : " (not " + std::string(Trim(r.content_type)) + ")"))
          .WithDetail("content_type", std::string(Trim(r.content_type)));
  }
  return Status::Ok();
}

}  // namespace pc
