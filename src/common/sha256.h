// SHA-256 (OpenSSL is wrapped here and nowhere else).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace pc {

// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// SHA-256 of data given piece by piece (a file read line by line).
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  void Add(std::string_view data);
  // Lower-case hex of everything added; the stream is spent after it.
  std::string FinishHex();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pc
