#include "model/text_check.h"

#include <algorithm>
#include <vector>

#include "common/utf8.h"
#include "model/canonical.h"

namespace pc {
namespace {

// True when every code point is white space or invisible (U+200B, U+3164 …): such a text says
// nothing, however many bytes it has.
bool IsInvisible(std::string_view canonical) {
  std::vector<int32_t> cps;
  if (!DecodeUtf8(canonical, cps)) return false;
  return std::all_of(cps.begin(), cps.end(),
                     [](int32_t cp) { return cp == ' ' || IsInvisibleCodePoint(cp); });
}

bool IsBlank(std::string_view s) {
  for (unsigned char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f') return false;
  return true;
}

}  // namespace

bool HasInvisible(std::string_view s) {
  std::vector<int32_t> cps;
  DecodeUtf8(s, cps);
  return std::any_of(cps.begin(), cps.end(),
                     [](int32_t cp) { return cp != ' ' && IsInvisibleCodePoint(cp); });
}

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
    return FieldError(field,
                      std::string(field) + " must not be empty or only invisible characters");
  return Status::Ok();
}

Status CheckOneLineText(std::string_view field_view, std::string_view value, size_t max_chars) {
  const std::string field(field_view);
  auto bad = [&](const std::string& why) { return FieldError(field, field + " " + why); };
  std::vector<int32_t> cps;
  if (!DecodeUtf8(value, cps)) return bad("is not valid UTF-8");
  if (cps.empty()) return bad("is empty");
  if (cps.size() > max_chars)
    return bad("is longer than " + std::to_string(max_chars) + " characters");
  if (std::any_of(cps.begin(), cps.end(), IsEcmaLineTerminator))
    return bad("spans lines (it must be one line)");
  if (IsEcmaSpace(cps.front()) || IsEcmaSpace(cps.back()))
    return bad("begins or ends with white space");
  return Status::Ok();
}

}  // namespace pc
