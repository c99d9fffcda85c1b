#include "service/validation.h"

#include <charconv>

#include "common/ids.h"
#include "common/utf8.h"
#include "model/canonical.h"
#include "model/citation.h"

namespace pc {
namespace {

bool IsBlank(std::string_view s) {
  for (unsigned char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f') return false;
  return true;
}

}  // namespace

Status CheckOptionalText(std::string_view field, std::string_view text, size_t max_bytes) {
  if (!IsValidUtf8(text)) return InvalidArgument(std::string(field) + " is not valid UTF-8");
  if (text.size() > max_bytes)
    return TooLarge(std::string(field) + " is " + std::to_string(text.size()) +
                    " bytes; the limit is " + std::to_string(max_bytes))
        .WithDetail("limit_bytes", static_cast<int64_t>(max_bytes));
  return Status::Ok();
}

Status CheckText(std::string_view field, std::string_view text, size_t max_bytes) {
  PC_RETURN_IF_ERROR(CheckOptionalText(field, text, max_bytes));
  if (IsBlank(text)) return InvalidArgument(std::string(field) + " must not be empty");
  // Unicode white space (e.g. U+3000) is blank too: the canonical form says so.
  PC_ASSIGN_OR_RETURN(std::string canon, CanonicalText(text));
  if (canon.empty()) return InvalidArgument(std::string(field) + " must not be empty");
  return Status::Ok();
}

Status CheckKind(std::string_view kind) {
  if (!IsValidKind(kind))
    return InvalidArgument("kind must match [a-z][a-z0-9_]{0,31}, e.g. fact, decision, constraint");
  return Status::Ok();
}

Status CheckScopeKey(std::string_view key, size_t max_bytes) {
  PC_RETURN_IF_ERROR(CheckText("key", key, max_bytes));
  for (unsigned char c : key)
    if (c < 0x20 || c == 0x7f) return InvalidArgument("key must not contain control characters");
  if (IsBlank(key.substr(0, 1)) || IsBlank(key.substr(key.size() - 1)))
    return InvalidArgument("key must not start or end with white space");
  return Status::Ok();
}

Status CheckScopeId(std::string_view scope_id) {
  if (scope_id.empty()) return InvalidArgument("scope_id is required");
  return Status::Ok();
}

Status CheckPage(const PageRequest& page) {
  if (page.limit < 1 || page.limit > kMaxPageLimit)
    return InvalidArgument("limit must be between 1 and " + std::to_string(kMaxPageLimit));
  return Status::Ok();
}

Result<int64_t> ParseIntCursor(const std::string& cursor) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(cursor.data(), cursor.data() + cursor.size(), v);
  if (ec != std::errc() || ptr != cursor.data() + cursor.size() || v < 1)
    return InvalidArgument("cursor is not one this server issued");
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
