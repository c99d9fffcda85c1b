// The write gates' settings of a scope (service/memory/write_policy.h): GET / PUT
// /v1/scopes/{scope}/settings.
#include "service/core/actor.h"
#include "service/core/validation.h"
#include "service/memory/memory_service.h"

namespace pc {

Result<ScopeSettingsView> MemoryService::GetSettings(const std::string& scope_id) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  ScopeSettingsView out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    out = ScopeSettingsView{scope_id, {}, SettingsOf(limits_.policy)};
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, FindScopeNamed(txn, scope_id));
    if (!scope) return Status::Ok();
    PC_ASSIGN_OR_RETURN(out.overrides, txn.ListScopeSettings(scope->scope_id));
    PC_ASSIGN_OR_RETURN(WritePolicy p, ScopePolicy(txn, scope->scope_id, limits_.policy));
    out.effective = SettingsOf(p);
    return Status::Ok();
  }));
  return out;
}

Result<ScopeSettingsView> MemoryService::SetSettings(
    const std::string& scope_id, const std::map<std::string, std::optional<std::string>>& changes) {
  PC_ASSIGN_OR_RETURN(const ScopeRef scope, ScopeRef::Parse(scope_id));
  if (changes.empty()) return FieldError("settings", "give at least one setting to change");
  for (const auto& [name, value] : changes) {
    if (value) {
      PC_RETURN_IF_ERROR(CheckSetting(name, *value));
    } else {
      PC_RETURN_IF_ERROR(CheckSetting(name, NeutralSetting(name)));
    }
  }
  PC_RETURN_IF_ERROR(store_.Write(RequestActor(), [&](WriteTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemoryForWrite(txn, scope));  // a key is created
    for (const auto& [name, value] : changes)
      PC_RETURN_IF_ERROR(txn.PutScopeSetting(memory.scope_id, name, value));
    return Status::Ok();
  }));
  return GetSettings(scope_id);
}

}  // namespace pc
