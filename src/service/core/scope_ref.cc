#include "service/core/scope_ref.h"

#include "service/core/validation.h"
#include "store/store.h"

namespace pc {

Result<ScopeRef> ScopeRef::Parse(std::string name, std::string_view field) {
  PC_RETURN_IF_ERROR(CheckScopeId(name, field));
  return ScopeRef(std::move(name));
}

Result<ScopeRef> ScopeRef::Given(const ScopeRef* given, std::string name, std::string_view field) {
  if (given && given->name_ == name) return *given;
  return Parse(std::move(name), field);
}

bool ScopeRef::server_id() const { return IsServerScopeId(name_); }

Result<std::optional<ScopeIds>> ScopeRef::Find(ReadTxn& txn,
                                               std::optional<Artifact>* memory) const {
  if (memory) memory->reset();
  if (found_) return found_;
  std::optional<Scope> scope;
  if (server_id()) {
    PC_ASSIGN_OR_RETURN(scope, txn.FindScope(name_));
  } else {
    PC_ASSIGN_OR_RETURN(scope, txn.FindScopeByKey(name_));
  }
  if (!scope) return std::optional<ScopeIds>();
  ScopeIds ids{scope->scope_id, scope->key, scope->memory_artifact_id};
  if (memory)
    *memory = Artifact{scope->memory_artifact_id, scope->scope_id, std::string(kMemoryFamily),
                       scope->memory_head_revision, scope->memory_created_at_ms};
  if (!txn.writing()) found_ = ids;
  return std::optional<ScopeIds>(std::move(ids));
}

}  // namespace pc
