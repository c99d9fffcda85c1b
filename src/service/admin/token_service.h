// API tokens (issue 14, docs/security.md): created with a role and scope patterns, the secret
// shown once and only its SHA-256 kept; revoked by name, which the next request sees in every
// server process on the store. Live tokens are cached by hash while the store's TokensStamp()
// stays the same (a stat, not a transaction); any token change in any process moves the stamp
// before it returns, and the next request then looks its token up again. Also the static token
// of PowerContext's own servers (POWERCONTEXT_SERVER_AUTH_TOKEN), an admin.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "auth/principal.h"
#include "common/status.h"
#include "model/types.h"
#include "store/store.h"

namespace pc {

struct NewToken {
  std::string name;  // 1–64 of [A-Za-z0-9._:@-]
  std::string role;  // reader, writer, admin, metrics
  std::vector<std::string> scope_patterns;
  std::string expires;  // "" (never), a duration "90d" / "12h" / "30m", or "2027-01-31[THH:MM:SSZ]"
};

struct CreatedToken {
  ApiToken token;
  std::string secret;  // shown once
};

// When a token expires, from `expires` as NewToken takes it (nullopt: never).
Result<std::optional<int64_t>> ParseExpiry(const std::string& expires, int64_t now_ms);

class TokenService {
 public:
  explicit TokenService(Store& store, std::string static_token = "")
      : store_(store), static_token_(std::move(static_token)) {}

  Result<CreatedToken> Create(const NewToken& request, const std::string& created_by);
  Result<std::vector<ApiToken>> List();
  // NotFound when no live token has the name.
  Status Revoke(const std::string& name);
  // The principal a bearer secret stands for; Unauthenticated (with a reason detail) when the
  // secret is unknown, revoked or expired.
  Result<Principal> Authenticate(std::string_view secret);

 private:
  static constexpr size_t kMaxCached = 10000;
  Store& store_;
  std::string static_token_;
  std::mutex mu_;
  std::string stamp_;                                // the stamp the cache was filled under
  std::unordered_map<std::string, ApiToken> cache_;  // live tokens by secret hash
};

}  // namespace pc
