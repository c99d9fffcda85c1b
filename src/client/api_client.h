// A small HTTP client for the PowerContext API: the CLI subcommands and `mcp --server` speak to a
// running server through it. It depends on the wire format only (src/wire), never on the server.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "wire/json.h"

namespace pc {

class ApiClient {
 public:
  // `server` is a base URL such as http://127.0.0.1:8787.
  explicit ApiClient(const std::string& server);
  ~ApiClient();

  // Sends a request; a JSON error answer becomes a Status with the server's code, message and
  // details; an unreachable server is ProviderUnavailable saying so.
  Result<Json> Get(const std::string& path, const std::map<std::string, std::string>& query = {});
  Result<Json> Post(const std::string& path, const Json& body);
  Result<Json> Put(const std::string& path, const Json& body);
  // The longest a request may take to connect, and then to answer (default 5 s and 60 s).
  void SetTimeout(int64_t ms);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pc
