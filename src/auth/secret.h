// API token secrets: 256 random bits, shown once; only their SHA-256 is kept (a 256-bit random
// secret needs no slow hash: there is nothing to guess).
#pragma once

#include <string>
#include <string_view>

namespace pc {

inline constexpr std::string_view kTokenPrefix = "pct_";
// "pct_" + 43 characters of base64url (32 bytes from the OS's CSPRNG via OpenSSL).
std::string NewTokenSecret();
// Lower-case hex SHA-256 of the secret: what the store keeps and looks up.
std::string HashTokenSecret(std::string_view secret);
// Compares in time that depends only on the lengths (for the static token).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace pc
