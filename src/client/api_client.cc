#include "client/api_client.h"

#include <httplib.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>

#include "client/call_route.h"
#include "client/token_file.h"
#include "common/json_parse.h"
#include "wire/error_json.h"

namespace pc {
namespace {

// What an https:// server's certificate is checked against, besides the system's CAs.
struct TlsTrust {
  std::string ca;       // POWERCONTEXT_TLS_CA, if set
  std::string problem;  // why that file cannot be read, if it cannot
};

}  // namespace

struct ApiClient::Impl {
  std::string server;
  httplib::Client http;
  TlsTrust trust;
  explicit Impl(const std::string& s) : server(s), http(s) {
    http.set_tcp_nodelay(true);
    http.set_connection_timeout(5);
    http.set_read_timeout(60);
    // A server with auth on wants a bearer token (docs/security.md); never put one in a URL.
    // Else the token `powercontext setup --token` kept for the hosts' hooks (client/token_file.h).
    if (const char* token = std::getenv("POWERCONTEXT_TOKEN"); token && *token)
      http.set_bearer_token_auth(token);
    else if (std::string kept = ReadTokenFile(); !kept.empty())
      http.set_bearer_token_auth(kept);
    // An https:// server is verified (certificate chain and host name), always: against the
    // system's CAs, or the CA bundle in POWERCONTEXT_TLS_CA for a private CA or a self-signed
    // certificate (docs/tls.md).
    if (const char* ca = std::getenv("POWERCONTEXT_TLS_CA"); ca && *ca) {
      trust.ca = ca;
      if (std::FILE* f = std::fopen(ca, "r"))
        std::fclose(f);
      else
        trust.problem = std::strerror(errno);
      http.set_ca_cert_path(trust.ca);
    }
  }
};

ApiClient::ApiClient(const std::string& server) : impl_(new Impl(server)) {}

void ApiClient::SetTimeout(int64_t ms) {
  const std::chrono::milliseconds t(ms < 1 ? 1 : ms);
  impl_->http.set_connection_timeout(t);
  impl_->http.set_read_timeout(t);
  impl_->http.set_write_timeout(t);
}
ApiClient::~ApiClient() = default;

namespace {

// Why a TLS connection failed, in the user's terms; empty for other failures.
std::string TlsProblem(httplib::Error error, const TlsTrust& trust) {
  switch (error) {
    case httplib::Error::SSLLoadingCerts:
      return trust.ca.empty()
                 ? "cannot load the system's CA certificates"
                 : "cannot load POWERCONTEXT_TLS_CA " + trust.ca + " (" +
                       (trust.problem.empty() ? "not a PEM CA bundle" : trust.problem) + ")";
    case httplib::Error::SSLServerVerification:
      return "its TLS certificate is not trusted or does not name this host; for a private CA or a "
             "self-signed "
             "certificate, set POWERCONTEXT_TLS_CA to the CA bundle (PEM) that signed it";
    case httplib::Error::SSLConnection:
      return "the TLS handshake failed (is the server serving https://?)";
    default:
      return "";
  }
}

Result<Json> Decode(const httplib::Result& res, const std::string& server, const TlsTrust& trust) {
  if (!res) {
    if (std::string why = TlsProblem(res.error(), trust); !why.empty())
      return Status(Code::kProviderUnavailable,
                    "cannot talk to the PowerContext server at " + server + ": " + why);
    return Status(Code::kProviderUnavailable,
                  "cannot reach the PowerContext server at " + server + " (" +
                      httplib::to_string(res.error()) +
                      "); start it with `powercontext serve` or pass --server URL");
  }
  // A text answer (a Handoff Report's Markdown) is handed over as one JSON string.
  if (res->status >= 200 && res->status < 300 &&
      res->get_header_value("Content-Type").rfind("text/", 0) == 0)
    return Json(res->body);
  Result<Json> parsed = ParseJson(res->body);
  if (!parsed.ok())
    return Internal("the server answered HTTP " + std::to_string(res->status) + " without JSON (" +
                    parsed.status().message() + ")");
  Json body = std::move(parsed).value();
  if (res->status >= 200 && res->status < 300) return body;
  return ErrorFromJson(res->status, body);
}

}  // namespace

Result<Json> ApiClient::Get(const std::string& path,
                            const std::map<std::string, std::string>& query) {
  httplib::Params params(query.begin(), query.end());
  return Decode(impl_->http.Get(path, params, httplib::Headers{}), impl_->server, impl_->trust);
}

Result<Json> ApiClient::Put(const std::string& path, const Json& body) {
  return Decode(impl_->http.Put(path, body.dump(), "application/json"), impl_->server,
                impl_->trust);
}

Result<Json> ApiClient::Post(const std::string& path, const Json& body) {
  return Decode(impl_->http.Post(path, body.dump(), "application/json"), impl_->server,
                impl_->trust);
}

namespace {

// GET takes the query, PUT and POST (any other method) the body.
Result<Json> Send(ApiClient& client, const std::string& method, const std::string& path,
                  const std::map<std::string, std::string>& query, const Json& body) {
  if (method == "GET") return client.Get(path, query);
  if (method == "PUT") return client.Put(path, body);
  return client.Post(path, body);
}

}  // namespace

CallRoute RemoteRoutes(const std::string& server_url) {
  auto client = std::make_shared<ApiClient>(server_url);
  auto mu = std::make_shared<std::mutex>();  // one connection, one request at a time
  return [client, mu](const std::string& method, const std::string& path,
                      const std::map<std::string, std::string>& query,
                      const Json& body) -> Result<Json> {
    std::lock_guard<std::mutex> lock(*mu);
    return Send(*client, method, path, query, body);
  };
}

CallRoute RoutesOf(ApiClient& client) {
  return
      [&client](const std::string& method, const std::string& path,
                const std::map<std::string, std::string>& query, const Json& body) -> Result<Json> {
        return Send(client, method, path, query, body);
      };
}

}  // namespace pc
