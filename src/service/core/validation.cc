#include "service/core/validation.h"

#include <algorithm>
#include <charconv>

#include "common/ids.h"
#include "common/utf8.h"
#include "model/canonical.h"
#include "model/citation.h"
#include "model/text_check.h"

namespace pc {
namespace {

constexpr size_t kMaxScopeIdChars = 256;  // the spec's maxLength: characters, not bytes

}  // namespace

Status CheckKind(std::string_view kind) {
  if (!IsValidKind(kind))
    return FieldError("kind",
                      "kind must be 1 to 128 characters, not blank, without control "
                      "characters, e.g. fact, decision, constraint");
  return Status::Ok();
}

bool IsServerScopeId(std::string_view scope_id) { return scope_id.starts_with(kScopePrefix); }

Status CheckScopeId(std::string_view scope_id, std::string_view field) {
  if (scope_id.empty()) return FieldError(field, std::string(field) + " is required");
  std::vector<int32_t> cps;
  if (!DecodeUtf8(scope_id, cps))
    return FieldError(field, std::string(field) + " is not valid UTF-8");
  if (cps.size() > kMaxScopeIdChars)
    return FieldError(field, std::string(field) + " is longer than " +
                                 std::to_string(kMaxScopeIdChars) + " characters");
  if (std::all_of(cps.begin(), cps.end(), IsEcmaSpace))
    return FieldError(field, std::string(field) + " must not be blank");
  return Status::Ok();
}

Status CheckName(std::string_view value, std::string_view field, size_t max_chars) {
  std::vector<int32_t> cps;
  if (!DecodeUtf8(value, cps) || cps.empty() || cps.size() > max_chars ||
      std::all_of(cps.begin(), cps.end(), IsEcmaSpace))
    return FieldError(field, std::string(field) + " must be 1 to " + std::to_string(max_chars) +
                                 " characters of UTF-8, not blank");
  return Status::Ok();
}

Status CheckScopeKey(std::string_view key, std::string_view field) {
  PC_RETURN_IF_ERROR(CheckScopeId(key, field));
  if (IsServerScopeId(key))
    return FieldError(field,
                      "scope ids beginning with scp_ are issued by the server; choose "
                      "another name (e.g. project:orders)");
  return Status::Ok();
}

Status CheckPage(const PageRequest& page) {
  if (page.limit < 1 || page.limit > kMaxPageLimit)
    return FieldError("limit", "limit must be between 1 and " + std::to_string(kMaxPageLimit));
  return Status::Ok();
}

Result<int64_t> ParseIntCursor(const std::string& cursor) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(cursor.data(), cursor.data() + cursor.size(), v);
  if (ec != std::errc() || ptr != cursor.data() + cursor.size() || v < 1)
    return FieldError("cursor", "cursor is not one this server issued");
  return v;
}

Result<std::optional<Scope>> FindScopeNamed(ReadTxn& txn, const std::string& scope_id) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  if (IsServerScopeId(scope_id)) return txn.FindScope(scope_id);
  return txn.FindScopeByKey(scope_id);
}

namespace {

Result<Artifact> MemoryOf(ReadTxn& txn, const ScopeIds& scope) {
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, txn.FindArtifact(scope.memory_artifact_id));
  if (!memory) return Internal("scope " + scope.id + " has no memory artifact");
  return *memory;
}

}  // namespace

Result<std::optional<Artifact>> FindMemory(ReadTxn& txn, const ScopeRef& scope) {
  std::optional<Artifact> found;  // when the scope was looked up here, with its memory
  PC_ASSIGN_OR_RETURN(std::optional<ScopeIds> ids, scope.Find(txn, &found));
  if (!ids || found) return found;
  PC_ASSIGN_OR_RETURN(Artifact memory, MemoryOf(txn, *ids));
  return std::optional<Artifact>(std::move(memory));
}

Result<std::optional<Artifact>> FindMemory(ReadTxn& txn, const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(ScopeRef scope, ScopeRef::Parse(scope_id));
  return FindMemory(txn, scope);
}

Status CheckMinRevisionValue(std::optional<int64_t> min_revision) {
  if (min_revision && *min_revision < 1)
    return FieldError("min_revision", "min_revision must be 1 or more");
  return Status::Ok();
}

Status CheckMinRevision(std::optional<int64_t> min_revision, const std::optional<Artifact>& memory,
                        const std::string& scope_id) {
  PC_RETURN_IF_ERROR(CheckMinRevisionValue(min_revision));
  if (!min_revision) return Status::Ok();
  const int64_t head = memory ? memory->head_revision : 0;
  if (head >= *min_revision) return Status::Ok();
  return Status(Code::kRevisionNotVisible, "the memory of " + scope_id + " is at revision " +
                                               std::to_string(head) + ", before min_revision " +
                                               std::to_string(*min_revision) +
                                               " (a revision this store has not committed)")
      .WithDetail("min_revision", *min_revision)
      .WithDetail("revision", head);
}

Result<Artifact> LoadMemory(ReadTxn& txn, const ScopeRef& scope) {
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, FindMemory(txn, scope));
  if (!memory) return NotFound("no scope " + scope.name()).WithDetail("scope_id", scope.name());
  return *memory;
}

Result<Artifact> LoadMemory(ReadTxn& txn, const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(ScopeRef scope, ScopeRef::Parse(scope_id));
  return LoadMemory(txn, scope);
}

Result<Artifact> LoadMemoryForWrite(WriteTxn& txn, const ScopeRef& scope) {
  std::optional<Artifact> found;  // when the scope was looked up here: its memory, locked
  PC_ASSIGN_OR_RETURN(std::optional<ScopeIds> ids, scope.Find(txn, &found));
  if (found) return *found;
  if (ids) return MemoryOf(txn, *ids);
  PC_RETURN_IF_ERROR(CheckScopeKey(scope.name()));  // an unknown scp_ id: not ours to create
  PC_ASSIGN_OR_RETURN(Scope created, txn.CreateScope(scope.name()));
  return MemoryOf(txn, ScopeIds{created.scope_id, created.key, created.memory_artifact_id});
}

Status CheckCitationInMemory(const Citation& c, const Artifact& memory) {
  if (c.memory.artifact_id != memory.artifact_id)
    return NotFound("citation " + FormatCitation(c) + " is not from this scope's memory");
  if (c.memory.revision > memory.head_revision)
    return NotFound("citation " + FormatCitation(c) + " names revision " +
                    std::to_string(c.memory.revision) + ", which does not exist")
        .WithDetail("current_revision", memory.head_revision);
  return Status::Ok();
}

}  // namespace pc
