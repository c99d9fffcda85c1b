// Who is asking, and what they may do (DESIGN §11, docs/security.md): a role, and scope patterns
// that limit every operation to the scopes whose names match.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pc {

// A token's role. Each includes the one before it: a writer may read, an admin may write.
// `metrics` may only scrape GET /metrics; `none` is a request without a valid token.
enum class Role { kNone, kMetrics, kReader, kWriter, kAdmin };

// What a route needs (declared once per route in the route table).
enum class Permission {
  kPublic,   // no token: liveness, readiness, the protected-resource metadata
  kRead,     // search, read, list, prepare
  kWrite,    // remember, revise, retire, sources, flush, handoffs
  kAdmin,    // tokens, reindex, audit
  kMetrics,  // GET /metrics: an admin or a metrics token
};

const char* RoleName(Role role);
std::optional<Role> ParseRole(std::string_view name);
const char* PermissionName(Permission p);

// A scope pattern: 1–256 bytes of UTF-8, no control characters; `*` matches any run of
// characters (also none), everything else matches itself, byte for byte (scope names are
// compared that way too). "project:orders-*", "*", "team/*/notes".
Status CheckScopePattern(std::string_view pattern);
bool MatchScopePattern(std::string_view pattern, std::string_view scope_name);

struct Principal {
  std::string name;  // the token's name; "local" for the local administrator
  Role role = Role::kAdmin;
  std::vector<std::string> scope_patterns;  // empty: every scope
  bool authenticated = false;  // false: auth is off, stdio MCP, or a command on the data directory

  bool Allows(Permission p) const;
  // Limited to some scopes (a token with --scope patterns).
  bool Restricted() const { return !scope_patterns.empty(); }
  // May this principal touch the scope named `scope_key` (its caller-chosen name)?
  bool MaySee(std::string_view scope_key) const;
};

// The local administrator: what auth=off, stdio MCP and `--data` commands act as.
const Principal& LocalAdministrator();
// Background work of the server itself (scheduled flushes, backfill).
const Principal& SystemPrincipal();
// A request that carries no valid token while auth is on: public routes only.
const Principal& Anonymous();

}  // namespace pc
