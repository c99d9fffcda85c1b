#include "service/admin/token_service.h"

#include <cctype>

#include "auth/secret.h"
#include "common/clock.h"
#include "service/core/actor.h"

namespace pc {
namespace {

Status CheckTokenName(const std::string& name) {
  if (name.empty() || name.size() > 64)
    return FieldError("name", "a token name is 1-64 characters");
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '.' && c != '_' && c != ':' && c != '@' && c != '-')
      return FieldError("name", "a token name has only letters, digits and . _ : @ -");
  if (name == "local" || name == "system" || name == "static" || name == "anonymous")
    return FieldError("name",
                      "\"" + name + "\" names the server's own actors; choose another name");
  return Status::Ok();
}

Principal PrincipalOf(const ApiToken& t) {
  return Principal{t.name, ParseRole(t.role).value_or(Role::kNone), t.scope_patterns, true};
}

Status Unauthenticated(const char* reason) {
  return Status(Code::kUnauthenticated, "A valid bearer token is required.")
      .WithDetail("reason", std::string(reason));
}

}  // namespace

Result<std::optional<int64_t>> ParseExpiry(const std::string& e, int64_t now_ms) {
  if (e.empty() || e == "never") return std::optional<int64_t>();
  // One reader of moments for the whole server (common/clock.h). It used to take a date only in
  // the stored form with milliseconds, so "2027-01-31", as the message offers, was refused.
  std::optional<int64_t> at = ParseMoment(e, now_ms);
  if (!at)
    return FieldError("expires",
                      "expires is a duration (90d, 12h, 30m) or a UTC date (2027-01-31 or "
                      "2027-01-31T12:00:00Z)");
  if (*at <= now_ms) return FieldError("expires", "expires is in the past");
  return at;
}

Result<CreatedToken> TokenService::Create(const NewToken& r, const std::string& created_by) {
  PC_RETURN_IF_ERROR(CheckTokenName(r.name));
  if (!ParseRole(r.role) || r.role == "none")
    return FieldError("role", "role is reader, writer, admin or metrics");
  if (r.scope_patterns.size() > 64) return FieldError("scope", "at most 64 scope patterns");
  for (const std::string& p : r.scope_patterns) PC_RETURN_IF_ERROR(CheckScopePattern(p));
  const int64_t now = NowMillis();
  PC_ASSIGN_OR_RETURN(std::optional<int64_t> expires, ParseExpiry(r.expires, now));
  CreatedToken out;
  out.secret = NewTokenSecret();
  out.token = ApiToken{r.name,     r.role, r.scope_patterns, HashTokenSecret(out.secret),
                       created_by, now,    expires,          {}};
  PC_RETURN_IF_ERROR(
      store_.Write(RequestActor(), [&](WriteTxn& txn) { return txn.CreateToken(out.token); }));
  return out;
}

Result<std::vector<ApiToken>> TokenService::List() {
  std::vector<ApiToken> out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out, txn.ListTokens());
    return Status::Ok();
  }));
  return out;
}

Status TokenService::Revoke(const std::string& name) {
  bool revoked = false;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(revoked, txn.RevokeToken(name, NowMillis()));
    return Status::Ok();
  }));
  if (!revoked) return NotFound("no live token is named " + name).WithDetail("name", name);
  // This process stops accepting it now, whether or not the store's stamp could move.
  std::lock_guard<std::mutex> lock(mu_);
  cache_.clear();
  return Status::Ok();
}

Result<Principal> TokenService::Authenticate(std::string_view secret) {
  if (secret.empty()) return Unauthenticated("missing");
  if (!static_token_.empty() && ConstantTimeEquals(secret, static_token_))
    return Principal{"static", Role::kAdmin, {}, true};
  // The lookup is by the secret's hash (an index seek); comparing hashes leaks nothing useful.
  const std::string hash = HashTokenSecret(secret);
  const std::string stamp =
      store_.TokensStamp();  // before the lookup: a change after it shows next time
  std::optional<ApiToken> token;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stamp != stamp_) {
      cache_.clear();
      stamp_ = stamp;
    }
    if (auto it = cache_.find(hash); it != cache_.end()) token = it->second;
  }
  if (!token) {
    PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(token, txn.FindTokenByHash(hash));
      return Status::Ok();
    }));
    if (token && !token->revoked_at_ms) {
      std::lock_guard<std::mutex> lock(mu_);
      if (stamp_ == stamp) {
        if (cache_.size() >= kMaxCached) cache_.clear();
        cache_.emplace(hash, *token);
      }
    }
  }
  if (!token) return Unauthenticated("unknown");
  if (token->revoked_at_ms) return Unauthenticated("revoked");
  if (token->expires_at_ms && *token->expires_at_ms <= NowMillis())
    return Unauthenticated("expired");
  return PrincipalOf(*token);
}

}  // namespace pc
