// A JSON client of the real server for end-to-end tests: POST a JSON body or GET, and get the
// status with the parsed answer (a discarded JSON value when the body is not JSON; status 0 when
// there was no answer at all).
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace pc::testing {

struct JsonHttp {
  httplib::Client c;
  explicit JsonHttp(int port) : c("127.0.0.1", port) { c.set_read_timeout(10, 0); }
  // Sends `Authorization: Bearer TOKEN` from now on.
  JsonHttp& Bearer(const std::string& token) {
    c.set_bearer_token_auth(token);
    return *this;
  }
  std::pair<int, nlohmann::json> Post(const std::string& path, const nlohmann::json& body,
                                      httplib::Headers* headers = nullptr) {
    return Answer(c.Post(path, body.dump(), "application/json"), headers);
  }
  // `headers`, when given, receives the answer's headers.
  std::pair<int, nlohmann::json> Get(const std::string& path, httplib::Headers* headers = nullptr) {
    return Answer(c.Get(path), headers);
  }

 private:
  static std::pair<int, nlohmann::json> Answer(const httplib::Result& res,
                                               httplib::Headers* headers) {
    if (!res) return {0, nlohmann::json()};
    if (headers) *headers = res->headers;
    return {res->status, nlohmann::json::parse(res->body, nullptr, false)};
  }
};

}  // namespace pc::testing
