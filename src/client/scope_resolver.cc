#include "client/scope_resolver.h"

#include <nlohmann/json.hpp>

namespace pc {
namespace {

constexpr const char* kScopeIdPrefix = "scp_";

Result<std::string> ScopeIdOf(const Json& scope) {
  auto id = scope.find("scope_id");
  if (id == scope.end() || !id->is_string()) return Internal("the server answered a scope without scope_id");
  return id->get<std::string>();
}

}  // namespace

Result<std::string> ResolveScopeKey(const CallRoute& call, const std::string& key, ScopeUse use) {
  if (use == ScopeUse::kWrite) {
    PC_ASSIGN_OR_RETURN(Json scope, call("POST", "/v1/scopes", {}, Json{{"key", key}}));
    return ScopeIdOf(scope);
  }
  PC_ASSIGN_OR_RETURN(Json page, call("GET", "/v1/scopes", {{"key", key}}, Json()));
  auto scopes = page.find("scopes");
  if (scopes == page.end() || !scopes->is_array())
    return Internal("the server answered a scope listing without scopes");
  if (scopes->empty())
    return NotFound("no scope with key " + key + " (a key is created by its first write)").WithDetail("key", key);
  return ScopeIdOf((*scopes)[0]);
}

Result<std::string> ResolveScope(const CallRoute& call, const std::string& id_or_key, ScopeUse use) {
  if (id_or_key.rfind(kScopeIdPrefix, 0) == 0) return id_or_key;
  return ResolveScopeKey(call, id_or_key, use);
}

}  // namespace pc
