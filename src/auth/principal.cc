#include "auth/principal.h"

#include "common/utf8.h"

namespace pc {

const char* RoleName(Role role) {
  switch (role) {
    case Role::kNone:
      return "none";
    case Role::kMetrics:
      return "metrics";
    case Role::kReader:
      return "reader";
    case Role::kWriter:
      return "writer";
    case Role::kAdmin:
      return "admin";
  }
  return "reader";
}

std::optional<Role> ParseRole(std::string_view name) {
  if (name == "reader") return Role::kReader;
  if (name == "writer") return Role::kWriter;
  if (name == "admin") return Role::kAdmin;
  if (name == "metrics") return Role::kMetrics;
  return std::nullopt;
}

const char* PermissionName(Permission p) {
  switch (p) {
    case Permission::kPublic:
      return "public";
    case Permission::kRead:
      return "read";
    case Permission::kWrite:
      return "write";
    case Permission::kAdmin:
      return "admin";
    case Permission::kMetrics:
      return "metrics";
  }
  return "admin";
}

Status CheckScopePattern(std::string_view pattern) {
  if (pattern.empty() || pattern.size() > 256)
    return FieldError("scope", "a scope pattern is 1-256 bytes");
  if (!IsValidUtf8(pattern)) return FieldError("scope", "a scope pattern must be valid UTF-8");
  for (unsigned char c : pattern)
    if (c < 0x20 || c == 0x7f)
      return FieldError("scope", "a scope pattern has no control characters");
  return Status::Ok();
}

// Glob with `*` only, iterative with one backtrack point: linear in practice, never exponential.
bool MatchScopePattern(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (pi < p.size() && p[pi] == s[si]) {
      ++pi;
      ++si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool Principal::Allows(Permission p) const {
  switch (p) {
    case Permission::kPublic:
      return true;
    case Permission::kMetrics:
      return role == Role::kMetrics || role == Role::kAdmin;
    case Permission::kRead:
      return role >= Role::kReader;
    case Permission::kWrite:
      return role >= Role::kWriter;
    case Permission::kAdmin:
      return role == Role::kAdmin;
  }
  return false;
}

bool Principal::MaySee(std::string_view scope_key) const {
  if (scope_patterns.empty()) return true;
  for (const std::string& p : scope_patterns)
    if (MatchScopePattern(p, scope_key)) return true;
  return false;
}

const Principal& LocalAdministrator() {
  static const Principal kLocal{"local", Role::kAdmin, {}, false};
  return kLocal;
}

const Principal& SystemPrincipal() {
  static const Principal kSystem{"system", Role::kAdmin, {}, false};
  return kSystem;
}

const Principal& Anonymous() {
  static const Principal kAnonymous{"anonymous", Role::kNone, {}, false};
  return kAnonymous;
}

}  // namespace pc
