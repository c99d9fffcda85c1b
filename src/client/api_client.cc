#include "client/api_client.h"

#include <httplib.h>

#include <cstdlib>
#include <mutex>

#include <nlohmann/json.hpp>

#include "client/call_route.h"
#include "common/json_parse.h"
#include "wire/error_json.h"


namespace pc {

struct ApiClient::Impl {
  std::string server;
  httplib::Client http;
  explicit Impl(const std::string& s) : server(s), http(s) {
    http.set_tcp_nodelay(true);
    http.set_connection_timeout(5);
    http.set_read_timeout(60);
    // A server with auth on wants a bearer token (docs/security.md); never put one in a URL.
    if (const char* token = std::getenv("POWERCONTEXT_TOKEN"); token && *token) http.set_bearer_token_auth(token);
  }
};

ApiClient::ApiClient(const std::string& server) : impl_(new Impl(server)) {}
ApiClient::~ApiClient() = default;

namespace {

Result<Json> Decode(const httplib::Result& res, const std::string& server) {
  if (!res)
    return Status(Code::kProviderUnavailable,
                  "cannot reach the PowerContext server at " + server + " (" +
                      httplib::to_string(res.error()) +
                      "); start it with `powercontext serve` or pass --server URL");
  Result<Json> parsed = ParseJson(res->body);
  if (!parsed.ok())
    return Internal("the server answered HTTP " + std::to_string(res->status) + " without JSON (" +
                    parsed.status().message() + ")");
  Json body = std::move(parsed).value();
  if (res->status >= 200 && res->status < 300) return body;
  return ErrorFromJson(res->status, body);
}

}  // namespace

Result<Json> ApiClient::Get(const std::string& path, const std::map<std::string, std::string>& query) {
  httplib::Params params(query.begin(), query.end());
  return Decode(impl_->http.Get(path, params, httplib::Headers{}),
                impl_->server);
}

Result<Json> ApiClient::Post(const std::string& path, const Json& body) {
  return Decode(impl_->http.Post(path, body.dump(), "application/json"), impl_->server);
}

CallRoute RemoteRoutes(const std::string& server_url) {
  auto client = std::make_shared<ApiClient>(server_url);
  auto mu = std::make_shared<std::mutex>();  // one connection, one request at a time
  return [client, mu](const std::string& method, const std::string& path,
                      const std::map<std::string, std::string>& query, const Json& body) -> Result<Json> {
    std::lock_guard<std::mutex> lock(*mu);
    return method == "GET" ? client->Get(path, query) : client->Post(path, body);
  };
}

CallRoute RoutesOf(ApiClient& client) {
  return [&client](const std::string& method, const std::string& path,
                   const std::map<std::string, std::string>& query, const Json& body) -> Result<Json> {
    return method == "GET" ? client.Get(path, query) : client.Post(path, body);
  };
}

}  // namespace pc
