#include "service/validation.h"

#include <algorithm>
#include <charconv>

#include "common/ids.h"
#include "common/utf8.h"
#include "model/canonical.h"
#include "model/citation.h"

namespace pc {
namespace {

Status FieldError(std::string_view field, std::string message) {
  return InvalidArgument(std::move(message)).WithDetail("field", std::string(field));
}

bool HasInvisible(std::string_view s) {
  std::vector<int32_t> cps;
  DecodeUtf8(s, cps);
  return std::any_of(cps.begin(), cps.end(), [](int32_t cp) { return cp != ' ' && IsInvisibleCodePoint(cp); });
}

// True when every code point is white space or invisible (U+200B, U+3164 …): such a text says
// nothing, however many bytes it has.
bool IsInvisible(std::string_view canonical) {
  std::vector<int32_t> cps;
  if (!DecodeUtf8(canonical, cps)) return false;
  return std::all_of(cps.begin(), cps.end(), [](int32_t cp) { return cp == ' ' || IsInvisibleCodePoint(cp); });
}

bool IsBlank(std::string_view s) {
  for (unsigned char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f') return false;
  return true;
}

}  // namespace

Status CheckOptionalText(std::string_view field, std::string_view text, size_t max_bytes) {
  if (!IsValidUtf8(text)) return FieldError(field, std::string(field) + " is not valid UTF-8");
  if (text.size() > max_bytes)
    return TooLarge(std::string(field) + " is " + std::to_string(text.size()) +
                    " bytes; the limit is " + std::to_string(max_bytes))
        .WithDetail("field", std::string(field))
        .WithDetail("limit_bytes", static_cast<int64_t>(max_bytes));
  return Status::Ok();
}

Status CheckText(std::string_view field, std::string_view text, size_t max_bytes) {
  PC_RETURN_IF_ERROR(CheckOptionalText(field, text, max_bytes));
  if (IsBlank(text)) return FieldError(field, std::string(field) + " must not be empty");
  // Unicode white space (e.g. U+3000) and invisible characters (U+200B) are blank too.
  PC_ASSIGN_OR_RETURN(std::string canon, CanonicalText(text));
  if (canon.empty() || IsInvisible(canon))
    return FieldError(field, std::string(field) + " must not be empty or only invisible characters");
  return Status::Ok();
}

Status CheckKind(std::string_view kind) {
  if (!IsValidKind(kind))
    return FieldError("kind", "kind must match [a-z][a-z0-9_]{0,31}, e.g. fact, decision, constraint");
  return Status::Ok();
}

Status CheckScopeKey(std::string_view key, size_t max_bytes) {
  PC_RETURN_IF_ERROR(CheckText("key", key, max_bytes));
  for (unsigned char c : key)
    if (c < 0x20 || c == 0x7f) return FieldError("key", "key must not contain control characters");
  // Keys are identifiers: only their canonical form is accepted, so two keys that look the same
  // (full-width letters, a trailing U+3000) can never name two scopes.
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
