#include "common/canonical_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "common/json_parse.h"
#include "common/sha256.h"
#include "common/utf8.h"

namespace pc {
namespace {

// The digits and exponent ECMAScript's Number::toString starts from (ECMA-262 6.1.6.1.20): the
// value is 0.d1d2…dk × 10^n with k as small as possible, which is what std::to_chars's shortest
// round-trip form gives (ties to the closer decimal).
void AppendFinite(double d, std::string& out) {
  if (d == 0) {  // +0 and -0 alike
    out += '0';
    return;
  }
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(end - buf));  // "-d.ddde±XX"
  if (!sci.empty() && sci.front() == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const size_t e_at = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_at))
    if (c != '.') digits += c;
  std::string_view exp_text = sci.substr(e_at + 1);  // "+08", "-07"
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  int exp10 = 0;
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<size_t>(n));
    out += '.';
    out.append(digits, static_cast<size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += n - 1 >= 0 ? '+' : '-';
    out += std::to_string(std::abs(n - 1));
  }
}

void AppendString(const std::string& s, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

// A member name as UTF-16 code units: the order RFC 8785 sorts by (U+1F600, D83D DE00 in UTF-16,
// comes before U+FB33 there, after it in UTF-8 or code point order). False when it is not UTF-8.
bool Utf16(const std::string& s, std::u16string& out) {
  std::vector<int32_t> cps;
  if (!DecodeUtf8(s, cps)) return false;
  out.reserve(cps.size());
  for (int32_t cp : cps) {
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out += static_cast<char16_t>(0xD800 + (cp >> 10));
      out += static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
    } else {
      out += static_cast<char16_t>(cp);
    }
  }
  return true;
}

// A refusal names where it happened: `where` is filled while the recursion unwinds (a child's
// segment first), so a value that canonicalizes builds no path at all.
struct Refusal {
  std::string why;
  std::string where;  // "[2].name", read from the root
};

bool Refuse(Refusal& r, std::string why) {
  r.why = std::move(why);
  return false;
}

bool Append(const nlohmann::json& v, int depth, std::string& out, Refusal& r) {
  if (depth > kMaxJsonDepth)
    return Refuse(r, "nested deeper than " + std::to_string(kMaxJsonDepth));
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      out += "null";
      return true;
    case nlohmann::json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return true;
    case nlohmann::json::value_t::number_integer:  // a double, as JSON.parse reads it
      AppendFinite(static_cast<double>(v.get<int64_t>()), out);
      return true;
    case nlohmann::json::value_t::number_unsigned:
      AppendFinite(static_cast<double>(v.get<uint64_t>()), out);
      return true;
    case nlohmann::json::value_t::number_float: {
      const double d = v.get<double>();
      if (!std::isfinite(d)) return Refuse(r, "a number that is not finite");
      AppendFinite(d, out);
      return true;
    }
    case nlohmann::json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (!IsValidUtf8(s)) return Refuse(r, "a string that is not UTF-8");
      AppendString(s, out);
      return true;
    }
    case nlohmann::json::value_t::array: {
      out += '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ',';
        if (!Append(v[i], depth + 1, out, r)) {
          r.where = "[" + std::to_string(i) + "]" + r.where;
          return false;
        }
      }
      out += ']';
      return true;
    }
    case nlohmann::json::value_t::object: {
      std::vector<std::pair<std::u16string, nlohmann::json::const_iterator>> members(v.size());
      size_t m = 0;
      for (auto it = v.begin(); it != v.end(); ++it, ++m) {
        if (!Utf16(it.key(), members[m].first)) return Refuse(r, "a member name that is not UTF-8");
        members[m].second = it;
      }
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      out += '{';
      bool first = true;
      for (const auto& [key16, it] : members) {
        if (!first) out += ',';
        first = false;
        AppendString(it.key(), out);
        out += ':';
        if (!Append(it.value(), depth + 1, out, r)) {
          r.where = "." + it.key() + r.where;
          return false;
        }
      }
      out += '}';
      return true;
    }
    case nlohmann::json::value_t::binary:
      return Refuse(r, "binary data");
    case nlohmann::json::value_t::discarded:
      return Refuse(r, "a discarded value");
  }
  return Refuse(r, "an unknown value");
}

}  // namespace

Result<std::string> CanonicalJson(const nlohmann::json& value) {
  std::string out;
  Refusal r;
  if (!Append(value, 0, out, r))
    return InvalidArgument("no canonical JSON (RFC 8785) for $" + r.where + ": " + r.why);
  return out;
}

Result<std::string> CanonicalJsonDigest(const nlohmann::json& value) {
  PC_ASSIGN_OR_RETURN(std::string canonical, CanonicalJson(value));
  return "sha256:" + Sha256Hex(canonical);
}

Result<std::string> EcmaNumber(double d) {
  if (!std::isfinite(d))
    return InvalidArgument("no ECMAScript number for a value that is not finite");
  std::string out;
  AppendFinite(d, out);
  return out;
}

}  // namespace pc
