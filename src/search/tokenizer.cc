#include "search/tokenizer.h"

#include <utf8proc.h>

#include <cstdlib>

namespace pc {
namespace {

enum class Cls { kSep, kWord, kConnector, kCjk };

bool IsCjk(int32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30FF) ||    // Hiragana, Katakana
         (cp >= 0x31F0 && cp <= 0x31FF) ||    // Katakana extensions
         (cp >= 0x3400 && cp <= 0x4DBF) ||    // CJK extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||    // CJK unified ideographs
         (cp >= 0xF900 && cp <= 0xFAFF) ||    // CJK compatibility ideographs
         (cp >= 0x20000 && cp <= 0x3134F) ||  // CJK extensions B–G
         (cp >= 0xAC00 && cp <= 0xD7AF) ||    // Hangul syllables
         (cp >= 0x1100 && cp <= 0x11FF) ||    // Hangul jamo
         (cp >= 0x3130 && cp <= 0x318F) ||    // Hangul compatibility jamo
         cp == 0x3005;                        // 々 (ideographic iteration mark)
}

bool IsConnector(int32_t cp) {
  return cp == '_' || cp == '.' || cp == '-' || cp == '/' || cp == '\\' || cp == ':';
}

Cls Classify(int32_t cp) {
  if (IsCjk(cp)) return Cls::kCjk;
  if (IsConnector(cp)) return Cls::kConnector;
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return Cls::kWord;
    default:
      return Cls::kSep;
  }
}

// One normalized character with where it came from and its original case.
struct Char {
  std::string text;  // UTF-8 of the folded code point
  Cls cls;
  bool upper;      // original was upper/title case (for camelCase splitting)
  bool lower;      // original was a lower-case letter
  int start, end;  // byte range of the original character it came from
};

std::string Encode(int32_t cp) {
  utf8proc_uint8_t buf[4];
  utf8proc_ssize_t n = utf8proc_encode_char(cp, buf);
  return std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(n));
}

std::vector<Char> Normalize(std::string_view text) {
  std::vector<Char> out;
  auto base = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  utf8proc_ssize_t pos = 0, size = static_cast<utf8proc_ssize_t>(text.size());
  while (pos < size) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(base + pos, size - pos, &cp);
    if (n <= 0) {  // invalid byte: a separator
      ++pos;
      continue;
    }
    int start = static_cast<int>(pos), end = static_cast<int>(pos + n);
    pos += n;
    auto cat = utf8proc_category(cp);
    bool upper = cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LT;
    bool lower = cat == UTF8PROC_CATEGORY_LL;
    if (cp < 0x80) {  // ASCII fast path
      int32_t folded = (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
      out.push_back(Char{std::string(1, static_cast<char>(folded)), Classify(folded), upper, lower,
                         start, end});
      continue;
    }
    if (IsCjk(cp) && !(cp >= 0xF900 && cp <= 0xFAFF)) {  // already NFKC and caseless
      out.push_back(
          Char{std::string(text.substr(static_cast<size_t>(start), static_cast<size_t>(n))),
               Cls::kCjk, false, false, start, end});
      continue;
    }
    // NFKC + case folding of this one character (so "ＡＢ" → "ab", "①" → "1", "ﬁ" → "fi").
    utf8proc_uint8_t* mapped = nullptr;
    utf8proc_ssize_t m =
        utf8proc_map(base + start, n, &mapped,
                     static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE |
                                                    UTF8PROC_COMPAT | UTF8PROC_CASEFOLD));
    if (m < 0) {
      std::free(mapped);
      continue;
    }
    utf8proc_ssize_t q = 0;
    while (q < m) {
      utf8proc_int32_t mc;
      utf8proc_ssize_t k = utf8proc_iterate(mapped + q, m - q, &mc);
      if (k <= 0) break;
      out.push_back(Char{Encode(mc), Classify(mc), upper, lower, start, end});
      q += k;
    }
    std::free(mapped);
  }
  return out;
}

struct Segment {
  bool cjk;
  size_t begin, end;  // index range into the chars
};

// Maximal runs of CJK characters, and of word characters joined by single connectors.
std::vector<Segment> Segments(const std::vector<Char>& chars) {
  std::vector<Segment> out;
  size_t i = 0;
  while (i < chars.size()) {
    if (chars[i].cls == Cls::kCjk) {
      size_t j = i;
      while (j < chars.size() && chars[j].cls == Cls::kCjk) ++j;
      out.push_back({true, i, j});
      i = j;
    } else if (chars[i].cls == Cls::kWord) {
      size_t j = i;
      while (j < chars.size()) {
        if (chars[j].cls == Cls::kWord)
          ++j;
        else if (chars[j].cls == Cls::kConnector && j + 1 < chars.size() &&
                 chars[j + 1].cls == Cls::kWord)
          ++j;
        else
          break;
      }
      out.push_back({false, i, j});
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

// Splits a word segment into parts at connectors and camelCase boundaries ("HTTPServer" →
// HTTP, Server; "parseJSON" → parse, JSON).
std::vector<std::pair<size_t, size_t>> Parts(const std::vector<Char>& c, const Segment& s) {
  std::vector<std::pair<size_t, size_t>> parts;
  size_t start = s.begin;
  auto is_digit = [&](size_t k) {
    return c[k].text.size() == 1 && c[k].text[0] >= '0' && c[k].text[0] <= '9';
  };
  for (size_t k = s.begin; k < s.end; ++k) {
    if (c[k].cls == Cls::kConnector) {
      if (k > start) parts.push_back({start, k});
      start = k + 1;
      continue;
    }
    if (k > start && c[k].upper) {
      // "camelCase", "v2Beta": a capital after a lower-case letter or a digit starts a part;
      // "HTTPServer": so does the last capital of a run when a lower-case letter follows.
      bool after_lower = c[k - 1].lower || is_digit(k - 1);
      bool acronym_end = c[k - 1].upper && k + 1 < s.end && c[k + 1].lower;
      if (after_lower || acronym_end) {
        parts.push_back({start, k});
        start = k;
      }
    }
  }
  if (s.end > start) parts.push_back({start, s.end});
  return parts;
}

std::string Join(const std::vector<Char>& c, size_t b, size_t e) {
  std::string out;
  for (size_t k = b; k < e; ++k) out += c[k].text;
  return out;
}

}  // namespace

std::vector<Token> Tokenize(std::string_view text, TokenizeMode mode) {
  std::vector<Char> c = Normalize(text);
  std::vector<Token> out;
  for (const Segment& s : Segments(c)) {
    if (s.cjk) {
      size_t n = s.end - s.begin;
      for (size_t k = s.begin; k < s.end; ++k) {
        bool has_next = k + 1 < s.end;
        if (mode == TokenizeMode::kDocument || n == 1)
          out.push_back({c[k].text, c[k].start, c[k].end, false});
        if (has_next)
          out.push_back({c[k].text + c[k + 1].text, c[k].start, c[k + 1].end,
                         mode == TokenizeMode::kDocument});
      }
      continue;
    }
    auto parts = Parts(c, s);
    for (size_t p = 0; p < parts.size(); ++p) {
      auto [b, e] = parts[p];
      out.push_back({Join(c, b, e), c[b].start, c[e - 1].end, false});
      if (p == 0 && parts.size() > 1 && mode == TokenizeMode::kDocument)
        out.push_back({Join(c, s.begin, s.end), c[s.begin].start, c[s.end - 1].end, true});
    }
  }
  return out;
}

std::vector<QueryUnit> QueryUnits(std::string_view query) {
  std::vector<Char> c = Normalize(query);
  std::vector<QueryUnit> out;
  for (const Segment& s : Segments(c)) {
    QueryUnit u{s.cjk ? UnitKind::kCjk : UnitKind::kWord, Join(c, s.begin, s.end), {}};
    if (s.cjk)
      for (size_t k = s.begin; k < s.end; ++k) u.chars.push_back(c[k].text);
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace pc
