// SHA-256 (OpenSSL is wrapped here and nowhere else).
#pragma once

#include <string>
#include <string_view>

namespace pc {

// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace pc
