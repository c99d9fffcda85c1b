#include "common/ids.h"
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/memory/memory_service.h"

namespace pc {
namespace {

// The scope `find` looks up in one read of `store`, if there is one.
template <typename Find>
Result<std::optional<Scope>> ReadScope(Store& store, Find find) {
  std::optional<Scope> scope;
  PC_RETURN_IF_ERROR(store.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(scope, find(txn));
    return Status::Ok();
  }));
  return scope;
}

}  // namespace

Result<ScopeOutcome> MemoryService::CreateScope(const std::string& key) {
  PC_RETURN_IF_ERROR(CheckScopeKey(key, "key"));
  ScopeOutcome out;
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> existing, txn.FindScopeByKey(key));
    if (existing) {
      out = ScopeOutcome{*existing, false};
      return Status::Ok();
    }
    PC_ASSIGN_OR_RETURN(Scope created, txn.CreateScope(key));
    out = ScopeOutcome{created, true};
    return Status::Ok();
  }));
  return out;
}

Result<Scope> MemoryService::GetScope(const std::string& scope_id) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_ASSIGN_OR_RETURN(std::optional<Scope> scope,
                      ReadScope(store_, [&](ReadTxn& txn) { return txn.FindScope(scope_id); }));
  if (!scope) return NotFound("no scope " + scope_id).WithDetail("scope_id", scope_id);
  return *scope;
}

Result<std::optional<ScopeIds>> MemoryService::FindScope(const ScopeRef& scope) {
  std::optional<ScopeIds> found;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(found, scope.Find(txn));
    return Status::Ok();
  }));
  return found;
}

Result<Scope> MemoryService::GetScopeByKey(const std::string& key) {
  PC_RETURN_IF_ERROR(CheckScopeKey(key, "key"));
  PC_ASSIGN_OR_RETURN(std::optional<Scope> scope,
                      ReadScope(store_, [&](ReadTxn& txn) { return txn.FindScopeByKey(key); }));
  if (!scope) return NotFound("no scope with key " + key).WithDetail("key", key);
  return *scope;
}

Result<ScopesPage> MemoryService::ListScopes(const PageRequest& page) {
  PC_RETURN_IF_ERROR(CheckPage(page));
  if (!page.cursor.empty() && !IsWellFormedId(page.cursor, kScopePrefix))
    return FieldError("cursor", "cursor is not one this server issued");
  ScopesPage out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(out.items, txn.ListScopes(page.cursor, page.limit + 1));
    return Status::Ok();
  }));
  if (out.items.size() > static_cast<size_t>(page.limit)) {
    out.items.resize(static_cast<size_t>(page.limit));
    out.next_cursor = out.items.back().scope_id;
  }
  return out;
}

}  // namespace pc
