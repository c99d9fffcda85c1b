#include "service/validation.h"

#include <algorithm>
#include <charconv>

#include "common/ids.h"
#include "common/utf8.h"
#include "model/canonical.h"
#include "model/citation.h"
#include "model/text_check.h"

namespace pc {
namespace {

Status FieldError(std::string_view field, std::string message) {
  return InvalidArgument(std::move(message)).WithDetail("field", std::string(field));
}

}  // namespace

Status CheckKind(std::string_view kind) {
  if (!IsValidKind(kind))
    return FieldError("kind", "kind must match [a-z][a-z0-9_]{0,31}, e.g. fact, decision, constraint");
  return Status::Ok();
}

Status CheckScopeKey(std::string_view key, size_t max_bytes) {
  PC_RETURN_IF_ERROR(CheckText("key", key, max_bytes));
  for (unsigned char c : key)
    if (c < 0x20 || c == 0x7f) return FieldError("key", "key must not contain control characters");
  // Keys are identifiers: only their canonical form is accepted, so two keys that NFKC folds
  // together (full-width letters, a trailing U+3000) can never name two scopes. Letters of other
  // scripts that merely look alike (Cyrillic о, Latin o) are other text and another key
  // (docs/api.md, POST /v1/scopes).
  if (HasInvisible(key))
    return FieldError("key", "key must not contain invisible characters (such as U+200B)");
  PC_ASSIGN_OR_RETURN(std::string canon, CanonicalText(key));
  if (canon != key)
    return FieldError("key", "key must be in canonical form (NFKC, no leading, trailing or repeated "
                             "white space); did you mean \"" + canon + "\"?");
  return Status::Ok();
}

Status CheckScopeId(std::string_view scope_id) {
  if (scope_id.empty()) return FieldError("scope_id", "scope_id is required");
  if (!IsValidUtf8(scope_id)) return FieldError("scope_id", "scope_id is not valid UTF-8");
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

Result<Artifact> LoadMemory(ReadTxn& txn, const std::string& scope_id) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, txn.FindScope(scope_id));
  if (!scope) return NotFound("no scope " + scope_id).WithDetail("scope_id", scope_id);
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> memory, txn.FindArtifact(scope->memory_artifact_id));
  if (!memory) return Internal("scope " + scope_id + " has no memory artifact");
  return *memory;
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
