#include "common/utf8.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

namespace pc {

namespace {

// Calls visit(cp) for each code point; false on malformed UTF-8. The one decoding loop here.
template <typename Visit>
bool ForEachCodePoint(std::string_view s, Visit visit) {
  auto p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0 || cp < 0) return false;
    visit(cp);
    p += n;
    left -= n;
  }
  return true;
}

}  // namespace

std::optional<size_t> CountCodePoints(std::string_view s) {
  if (!IsValidUtf8(s)) return std::nullopt;
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;  // every byte but a continuation byte starts one
  return n;
}

bool DecodeUtf8(std::string_view s, std::vector<int32_t>& out) {
  return ForEachCodePoint(s, [&](int32_t cp) { out.push_back(cp); });
}

// Called on every write (each field): validates in place, allocating nothing.
bool IsValidUtf8(std::string_view s) {
  return ForEachCodePoint(s, [](int32_t) {});
}

bool IsEcmaSpace(int32_t cp) {
  return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0xa0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f ||
         cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

bool IsEcmaLineTerminator(int32_t cp) {
  return cp == 0x0a || cp == 0x0d || cp == 0x2028 || cp == 0x2029;
}

bool IsInvisibleCodePoint(int32_t cp) {
  auto cat = utf8proc_category(cp);
  return cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_ZS ||
         utf8proc_get_property(cp)->ignorable;
}

namespace {

Result<std::string> Map(std::string_view s, int options) {
  if (!IsValidUtf8(s)) return InvalidArgument("text is not valid UTF-8");
  utf8proc_uint8_t* out = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                    static_cast<utf8proc_ssize_t>(s.size()), &out,
                                    static_cast<utf8proc_option_t>(options));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> guard(out, &std::free);
  if (n < 0) return InvalidArgument(std::string("cannot normalize text: ") + utf8proc_errmsg(n));
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

}  // namespace

Result<std::string> NormalizeNfc(std::string_view s) {
  return Map(s, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
}

Result<std::string> NormalizeNfkc(std::string_view s) {
  return Map(s, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
}

Result<std::string> NormalizeNfkcCasefold(std::string_view s) {
  return Map(s, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD);
}

std::string EscapeInvalidUtf8(std::string_view s) {
  std::string out;
  auto p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n > 0 && cp >= 0) {
      out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += "\\x";
      out.push_back(kHex[*p >> 4]);
      out.push_back(kHex[*p & 0xF]);
      n = 1;
    }
    p += n;
    left -= n;
  }
  return out;
}

std::string_view Utf8Prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t end = max_bytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

std::string CutUtf8(std::string_view text, size_t max_bytes, std::string_view mark) {
  if (text.size() <= max_bytes) return std::string(text);
  if (max_bytes < mark.size()) return std::string(Utf8Prefix(text, max_bytes));
  return std::string(Utf8Prefix(text, max_bytes - mark.size())) + std::string(mark);
}

std::string FoldForMatch(std::string_view text) {
  auto folded = NormalizeNfkcCasefold(text);
  const std::string_view s = folded.ok() ? std::string_view(*folded) : text;
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

namespace {
bool AsciiWordChar(char c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}
}  // namespace

bool FoldedContains(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  for (size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + 1)) {
    const bool left = !AsciiWordChar(needle.front()) || at == 0 || !AsciiWordChar(haystack[at - 1]);
    const size_t end = at + needle.size();
    const bool right =
        !AsciiWordChar(needle.back()) || end == haystack.size() || !AsciiWordChar(haystack[end]);
    if (left && right) return true;
  }
  return false;
}

}  // namespace pc
