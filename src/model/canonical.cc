#include "model/canonical.h"

#include <utf8proc.h>

#include "common/sha256.h"
#include "common/utf8.h"

namespace pc {
namespace {

constexpr size_t kMaxKindChars = 128;  // the spec's maxLength (characters)

bool IsSpace(utf8proc_int32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r' || cp == 0x85) return true;
  // Zs (space separators), Zl, Zp; NFKC already mapped most of Zs to U+0020.
  auto cat = utf8proc_category(cp);
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

}  // namespace

Result<std::string> CanonicalText(std::string_view text) {
  PC_ASSIGN_OR_RETURN(std::string nfkc, NormalizeNfkc(text));
  std::string out;
  out.reserve(nfkc.size());
  bool pending_space = false;
  auto p = reinterpret_cast<const utf8proc_uint8_t*>(nfkc.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(nfkc.size());
  while (left > 0) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (IsSpace(cp)) {
      pending_space = !out.empty();
    } else {
      if (pending_space) out.push_back(' ');
      pending_space = false;
      out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    }
    p += n;
    left -= n;
  }
  return out;
}

Result<std::string> ContentHash(std::string_view kind, std::string_view text) {
  PC_ASSIGN_OR_RETURN(std::string canon, CanonicalText(text));
  std::string material(kind);
  material.push_back('\n');
  material += canon;
  return Sha256Hex(material);
}

bool IsValidKind(std::string_view kind) {
  std::vector<int32_t> cps;  // each is checked below, so decoded once here
  if (kind.empty() || !DecodeUtf8(kind, cps) || cps.size() > kMaxKindChars) return false;
  bool visible = false;
  for (int32_t cp : cps) {
    if (cp < 0x20 || cp == 0x7f)
      return false;  // keeps "kind\ntext" (the hash's material) unambiguous
    visible = visible || (!IsSpace(cp) && cp != ' ');
  }
  return visible;
}

}  // namespace pc
