// RFC 8785, the JSON Canonicalization Scheme (JCS): one byte sequence per JSON value, so a digest
// of a value is stable across processes, stores and languages (a Handoff Report's digests, RFC
// 0082).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "common/status.h"

namespace pc {

// The canonical form of `value`: no white space; object members sorted by their names' UTF-16 code
// units; strings with only '"', '\\' and the control characters escaped (\b \t \n \f \r, the rest
// \u00xx); numbers as ECMAScript writes a double (the shortest form that reads back exactly:
// 4.50 → 4.5, 1E30 → 1e+30, -0 → 0). Every number is a double, as RFC 8785's model (JavaScript's
// JSON.parse) reads it: integers up to ±2^53 are exact, a wider one becomes the nearest double
// (2^60 + 1 → 1152921504606847000), so canonical text canonicalizes to itself. InvalidArgument,
// naming the path, for what has no canonical form: a number that is not finite, a string that is
// not UTF-8, binary data, or nesting deeper than kMaxJsonDepth.
Result<std::string> CanonicalJson(const nlohmann::json& value);

// "sha256:" and the lower-case hex SHA-256 of CanonicalJson(value).
Result<std::string> CanonicalJsonDigest(const nlohmann::json& value);

// `d` as ECMAScript's Number.prototype.toString writes it; InvalidArgument when it is not finite.
Result<std::string> EcmaNumber(double d);

}  // namespace pc
