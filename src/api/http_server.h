// The HTTP API: one route table, JSON errors for everything that fails, graceful stop.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "api/body_limits.h"
#include "api/edge_guard.h"
#include "api/services.h"
#include "common/status.h"

namespace pc {
class Router;
}  // namespace pc

namespace pc {

// How connections get workers and how long they may keep one (api/http_connections.h).
struct ConnectionLimits {
  size_t max_connections = 512;  // = worker threads at most
  size_t max_per_address = 256;
  std::chrono::milliseconds header_deadline{5000};
  std::chrono::milliseconds body_deadline{60000};
  std::chrono::milliseconds idle_timeout{5000};
  std::chrono::milliseconds read_timeout{5000};  // one read of a body, as the library's
  size_t keep_alive_max_requests = 10000;
};

// One line per request on stderr (RFC 0046), or none.
enum class AccessLog { kOff, kText, kJson };

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8787;
  BodyLimits body_limits;        // per route (api/body_limits.h); larger bodies answer 413
  ConnectionLimits connections;  // workers, deadlines, per-address cap
  EdgePolicy edge;               // Host, Origin, content type (listen_host set from host)
  // Authentication (DESIGN §11): off = every caller is the local administrator (loopback only,
  // unless the operator overrides it); on = a bearer token on every non-public route.
  bool auth = false;
  double rate_limit_per_second = 0;  // per token; 0 = no limit
  double rate_limit_burst = 0;
  AccessLog access_log = AccessLog::kText;
  // Served over TLS (1.2 at least) with this PEM certificate chain and private key; Bind() loads
  // them and fails naming the file that is missing or wrong. `tls` says so in this server's URLs.
  bool tls = false;
  std::string tls_cert;
  std::string tls_key;
  std::string security_warning;  // see RouteOptions (api/router.h)
};

// A path served outside the route table, with the request's headers (names lower-case): MCP's
// streamable HTTP at /mcp.
struct RawHttpReply {
  int status = 200;
  std::string content_type;
  std::string body;
};
using RawHandler = std::function<RawHttpReply(const std::string& method,
                                              const std::map<std::string, std::string>& headers,
                                              const std::string& body)>;

class HttpServer {
 public:
  HttpServer(Services services, HttpOptions options);
  ~HttpServer();

  // The /v1 route table (for callers in this process, e.g. MCP tools).
  const Router& router() const;
  // Serves `path` (exactly) with `handler`; call before Serve().
  void AddRawRoute(const std::string& path, RawHandler handler);

  // Binds the socket (port 0 = any free port); after this, port() is known.
  Status Bind();
  int port() const;
  // Serves until Stop(); returns when the server has stopped.
  Status Serve();
  // Thread-safe; makes Serve() return after in-flight requests finish.
  void Stop();

  struct Impl;  // defined in http_server.cc only

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace pc
