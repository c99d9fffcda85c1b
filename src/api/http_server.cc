#include "api/http_server.h"

#include <httplib.h>
#include <malloc.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>

#include "api/edge_guard.h"
#include "api/http_connections.h"
#include "api/router.h"
#include "auth/rate_limiter.h"
#include "auth/request_context.h"
#include "common/clock.h"
#include "common/json_parse.h"
#include "ops/metrics.h"
#include "wire/error_map.h"

namespace pc {

struct HttpServer::Impl {
  Impl(Services s, HttpOptions o)
      : services(s),
        options(std::move(o)),
        server(options.connections),
        limiter(options.rate_limit_per_second, options.rate_limit_burst) {}
  Services services;
  HttpOptions options;
  Router router;
  std::map<std::string, RawHandler> raw;  // set before Serve(), read-only after
  GuardedHttpServer server;
  int port = 0;
  std::atomic<bool> stopping{false};
  RateLimiter limiter;
  std::mutex log_mu;  // one access-log line at a time
};

namespace {

constexpr int kListenBacklog = 1024;
// A body refused for its size is still read (and dropped) up to this size: see ServeRequest.
constexpr uint64_t kDrainRefusedBodyBytes =
    uint64_t{16} << 20;  // bursts of new connections wait in the kernel, not fail

// Every response carries a request id (RFC 0046, issue 14): the client's X-PowerContext-Request-ID
// when it is well-formed (1–128 of [A-Za-z0-9._:-]), else a new one shaped like an OpenTelemetry
// span id (16 hex digits). Set first, so refusals by the edge guard and the library carry it too.
constexpr const char* kRequestIdHeader = "X-PowerContext-Request-ID";

bool IsWellFormedRequestId(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (unsigned char c : id)
    if (!std::isalnum(c) && c != '.' && c != '_' && c != ':' && c != '-') return false;
  return true;
}

std::string NewRequestId() {
  thread_local std::mt19937_64 rng{
      std::random_device{}() ^
      static_cast<uint64_t>(std::hash<std::thread::id>{}(std::this_thread::get_id()))};
  uint64_t v = rng();
  if (v == 0) v = 1;  // an all-zero span id is invalid in OpenTelemetry
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

void TagRequest(const httplib::Request& req, httplib::Response& res) {
  if (res.has_header(kRequestIdHeader)) return;
  std::string given = req.get_header_value(kRequestIdHeader);
  res.set_header(kRequestIdHeader, IsWellFormedRequestId(given) ? given : NewRequestId());
}

void WriteJson(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  // Replace rather than throw if a string somehow is not UTF-8: the response must always go out.
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

// How the client reached this server, e.g. http://127.0.0.1:8787 (the Host header has passed
// the edge guard).
std::string BaseUrl(const HttpServer::Impl& impl, const httplib::Request& req) {
  return std::string(impl.options.tls ? "https://" : "http://") + req.get_header_value("Host");
}

// The edge guard (api/edge_guard.h) on this request; on refusal the answer is written and the
// connection closes (a refused body is never read).
bool PassesEdge(const HttpServer::Impl& impl, const httplib::Request& req, httplib::Response& res) {
  EdgeRequest e;
  e.method = req.method;
  e.host = req.get_header_value("Host");
  e.has_origin = req.has_header("Origin");
  e.origin = req.get_header_value("Origin");
  e.content_type = req.get_header_value("Content-Type");
  e.content_length_headers = req.get_header_value_count("Content-Length");
  e.content_length = req.get_header_value("Content-Length");
  e.target = req.target;
  e.headers.assign(req.headers.begin(), req.headers.end());
  e.headers_malformed = RequestHeadersMalformed();
  e.has_transfer_encoding = req.has_header("Transfer-Encoding");
  e.has_body = e.has_transfer_encoding ||
               (e.content_length_headers > 0 && req.get_header_value("Content-Length") != "0");
  Status edge = CheckEdge(impl.options.edge, e);
  if (edge.ok()) return true;
  CloseConnectionAfterResponse();
  WriteJson(res, HttpStatusFor(edge.code()), ErrorJson(edge));
  return false;
}

// The answer to a request; the operation it was (for the access log and metrics).
const char* Handle(const HttpServer::Impl& impl, const httplib::Request& req,
                   httplib::Response& res, std::string body, const Router::Match& match,
                   const JsonLimits& json_limits) {
  if (auto raw = impl.raw.find(req.path); raw != impl.raw.end()) {
    std::map<std::string, std::string> headers;
    for (const auto& [k, v] : req.headers) {
      std::string name = k;
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (name == "authorization") continue;  // checked at the edge; handlers never see secrets
      headers.emplace(std::move(name), v);
    }
    RawHttpReply reply = raw->second(req.method, headers, body);
    res.status = reply.status;
    if (!reply.body.empty() || !reply.content_type.empty())
      res.set_content(reply.body, reply.content_type);
    return "mcp";
  }
  const Router& router = impl.router;
  // HEAD is GET without the body (RFC 9110); the library drops the body when it answers.
  ApiRequest api{req.method == "HEAD" ? "GET" : req.method,
                 req.path,
                 {},
                 {},
                 std::move(body),
                 BaseUrl(impl, req)};
  api.json_limits = json_limits;
  for (const auto& [k, v] : req.params) api.query.emplace(k, v);
  ApiResponse out = router.Dispatch(api, match);
  if (out.status == 405) {
    auto& details = out.body["error"]["details"];
    if (details.contains("allow")) res.set_header("Allow", details["allow"].get<std::string>());
  }
  for (const auto& [name, value] : out.headers) res.set_header(name, value);
  if (out.text) {
    res.status = out.status;
    res.set_content(*out.text, out.content_type);
  } else {
    WriteJson(res, out.status, out.body);
  }
  return out.operation;
}

// Who the request is (DESIGN §11). With auth off, the local administrator; with it on, the
// principal of a valid `Authorization: Bearer` token, else Anonymous (public routes only).
// A token that could not be checked (the store failed) is `broken`, not a 401: the client's
// credentials may be fine.
Principal Authenticate(const HttpServer::Impl& impl, const httplib::Request& req,
                       std::string& reason, std::optional<Status>& broken) {
  if (!impl.options.auth) return LocalAdministrator();
  std::string header = req.get_header_value("Authorization");
  if (header.empty()) {
    reason = "missing";
    return Anonymous();
  }
  // "Bearer <token>": the scheme is case-insensitive (RFC 9110 §11.1).
  const size_t space = header.find(' ');
  std::string scheme = header.substr(0, space);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t start =
      space == std::string::npos ? std::string::npos : header.find_first_not_of(' ', space);
  const std::string secret = start == std::string::npos ? "" : header.substr(start);
  if (scheme != "bearer" || secret.empty()) {
    reason = "malformed";
    return Anonymous();
  }
  Result<Principal> who = impl.services.tokens.Authenticate(secret);
  if (who.ok()) return std::move(who).value();
  reason = "invalid";
  for (const Detail& d : who.status().details())
    if (d.key == "reason" && std::holds_alternative<std::string>(d.value))
      reason = std::get<std::string>(d.value);
  if (who.status().code() != Code::kUnauthenticated) broken = who.status();
  return Anonymous();
}

// How many JSON-RPC messages an MCP body holds (a batch is an array; anything else counts one),
// counted without building it (the MCP server parses it once, after).
int McpBatchSize(const std::string& body) {
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || body[first] != '[') return 1;
  return static_cast<int>(std::clamp<size_t>(CountTopLevelElements(body), 1, 1 << 20));
}

// What the access log and the metrics say of a request.
struct Served {
  const char* operation = "unmatched";
  std::string actor = "-";
};

// The request's body, read up to `max_body`; false when it was refused (413, 400: answered).
bool ReadBody(const httplib::Request& req, httplib::Response& res,
              const httplib::ContentReader* reader, size_t max_body, const char* operation,
              std::string& body) {
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3).
  if (reader && (req.has_header("Content-Length") || req.has_header("Transfer-Encoding"))) {
    if (const uint64_t declared =
            std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10);
        declared > max_body) {
      // Refused before a byte of it is kept. A body of a plausible size is read and dropped
      // (memory O(1), within the body deadline), so that a client that sends before it reads gets
      // this answer rather than a reset connection; a larger one is not read at all.
      if (declared <= kDrainRefusedBodyBytes) (*reader)([](const char*, size_t) { return true; });
      CloseConnectionAfterResponse();
      WriteJson(res, 413,
                ErrorJson(TooLarge("request body is too large for " + std::string(operation))
                              .WithDetail("limit_bytes", static_cast<int64_t>(max_body))));
      return false;
    }
    bool complete = (*reader)([&body, max_body](const char* data, size_t n) {
      body.append(data, n);
      return body.size() <= max_body;
    });
    if (!complete) {
      // The library drains (skips) a body whose Content-Length is over the limit, then fails.
      bool too_large =
          body.size() > max_body ||
          std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) > max_body;
      CloseConnectionAfterResponse();
      WriteJson(res, too_large ? 413 : 400,
                ErrorJson(too_large ? TooLarge("request body is too large")
                                          .WithDetail("limit_bytes", static_cast<int64_t>(max_body))
                                    : InvalidArgument("could not read the request body")));
      return false;
    }
  } else if (!reader) {
    body = req.body;
  }
  return true;
}

// An MCP batch is many calls in one request: it pays for each (one was taken at the door). The
// refusal when that puts the token over its rate (Retry-After set).
std::optional<Status> BatchOverRate(HttpServer::Impl& impl, const Principal& who,
                                    const std::string& body, httplib::Response& res) {
  if (!who.authenticated || !impl.limiter.enabled()) return std::nullopt;
  const int calls = McpBatchSize(body);
  if (calls <= 1) return std::nullopt;
  const int wait = impl.limiter.Take(who.name, calls - 1);
  if (wait <= 0) return std::nullopt;
  res.set_header("Retry-After", std::to_string(wait));
  return Status(Code::kRateLimited, "token " + who.name + " is over its request rate (a batch of " +
                                        std::to_string(calls) + " calls); retry after " +
                                        std::to_string(wait) + " s")
      .WithDetail("retry_after_seconds", int64_t{wait});
}

// Authentication, the rate limit, then the route.
Served ServeRequest(HttpServer::Impl& impl, const httplib::Request& req, httplib::Response& res,
                    const httplib::ContentReader* reader) {
  Served served;
  if (!PassesEdge(impl, req, res)) {
    served.operation = "edge";
    return served;
  }
  std::string reason;
  std::optional<Status> broken;
  const Principal who = Authenticate(impl, req, reason, broken);
  served.actor = who.name;
  ScopedRequest context(who, res.get_header_value(kRequestIdHeader));
  const bool raw = impl.raw.count(req.path) > 0;
  // Resolved once: who may call it is known before the body is read, and Dispatch reuses it.
  const Router::Match match =
      raw ? Router::Match{}
          : impl.router.Resolve(req.method == "HEAD" ? "GET" : req.method, req.path);
  const RouteInfo* route = match.info();
  const char* operation = route ? route->access.operation : raw ? "mcp" : "unmatched";
  served.operation = operation;
  auto refuse = [&](const Status& s) {
    if (reader) CloseConnectionAfterResponse();  // the body is never read
    WriteJson(res, HttpStatusFor(s.code()), ErrorJson(s));
    impl.services.audit.RecordDenied(operation, res.status,
                                     reason);  // bounded, outside the write path
  };
  if (broken && (raw || !route || route->access.permission != Permission::kPublic)) {
    if (reader) CloseConnectionAfterResponse();
    WriteJson(res, 500,
              ErrorJson(Internal("could not check the bearer token: " + broken->message())));
    return served;
  }
  if (who.role == Role::kNone &&
      (raw || !route || route->access.permission != Permission::kPublic)) {
    // RFC 6750 §3; MCP clients also learn where the resource's metadata is (RFC 9728 §5.1).
    std::string challenge = "Bearer";
    if (raw)
      challenge +=
          " resource_metadata=\"" + BaseUrl(impl, req) + "/.well-known/oauth-protected-resource\"";
    res.set_header("WWW-Authenticate", challenge);
    refuse(Status(Code::kUnauthenticated, "A valid bearer token is required.")
               .WithDetail("reason", reason));
    return served;
  }
  if (who.authenticated) {
    if (int wait = impl.limiter.Take(who.name); wait > 0) {
      res.set_header("Retry-After", std::to_string(wait));
      reason = "rate limit";
      refuse(Status(Code::kRateLimited, "token " + who.name +
                                            " is over its request rate; retry after " +
                                            std::to_string(wait) + " s")
                 .WithDetail("retry_after_seconds", int64_t{wait}));
      return served;
    }
  }
  std::string body;
  // The route's own limit (api/body_limits.h): remember reads tens of KiB, not the batch's 8 MiB.
  const size_t max_body = route ? impl.options.body_limits.Of(route->access.body)
                          : raw ? impl.options.body_limits.batch
                                : impl.options.body_limits.small;
  if (!ReadBody(req, res, reader, max_body, operation, body)) return served;
  if (std::optional<Status> over = raw ? BatchOverRate(impl, who, body, res) : std::nullopt) {
    reason = "rate limit";
    refuse(*over);
    return served;
  }
  const bool large = body.size() > 256 * 1024;
  served.operation = Handle(impl, req, res, std::move(body), match, JsonLimitsForBody(max_body));
  // A large request's memory goes back to the system, not to an arena that keeps it (8 parses of
  // 8 MiB at once held 1.4 GB for good).
  if (large) malloc_trim(0);
  return served;
}

// One access-log line per request (RFC 0046): never a body, a query, a header value or a token;
// only the route's operation, not the path. Health probes and metrics scrapes are not logged.
void LogAccess(HttpServer::Impl& impl, const httplib::Request& req, const httplib::Response& res,
               const Served& served, std::chrono::steady_clock::time_point started) {
  const AccessLog format = impl.options.access_log;
  if (format == AccessLog::kOff) return;
  const std::string op = served.operation;
  if (op == "get_liveness" || op == "get_readiness" || op == "get_metrics") return;
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.3f", ms);
  std::string line;
  const std::string request_id = res.get_header_value(kRequestIdHeader);
  if (format == AccessLog::kJson) {
    Json j{{"time", FormatTimestamp(NowMillis())},
           {"event", "transport.request.completed"},
           {"transport", "http"},
           {"request_id", request_id},
           {"method", req.method},
           {"operation", op},
           {"status_code", res.status},
           {"duration_ms", std::stod(duration)},
           {"outcome", res.status < 400 ? "success" : "failure"},
           {"actor", served.actor},
           {"client", req.remote_addr}};
    line = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  } else {
    line = FormatTimestamp(NowMillis()) + " http " + req.method + " " + op + " " +
           std::to_string(res.status) + " " + duration + "ms request_id=" + request_id +
           " actor=" + served.actor + " client=" + req.remote_addr;
  }
  line += '\n';
  std::lock_guard<std::mutex> lock(impl.log_mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace

HttpServer::HttpServer(Services services, HttpOptions options)
    : impl_(new Impl(services, std::move(options))) {
  AddRoutes(impl_->router, services, RouteOptions{impl_->options.security_warning});
  for (const RouteInfo& r : impl_->router.Routes())
    ops::metrics().DeclareHttpOperation(r.access.operation);

  httplib::Server& s = impl_->server;
  Impl& impl = *impl_;
  // Bodies are read through a content reader: the library's plain handlers cap a body sent as
  // application/x-www-form-urlencoded (what `curl -d` sends) at 8 KiB before routing.
  auto serve = [&impl](const httplib::Request& req, httplib::Response& res,
                       const httplib::ContentReader* reader) {
    auto started = std::chrono::steady_clock::now();
    TagRequest(req, res);
    Served served = ServeRequest(impl, req, res, reader);
    LogAccess(impl, req, res, served, started);
    ops::metrics().ObserveHttpRequest(
        served.operation, res.status,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  auto handler = [serve](const httplib::Request& req, httplib::Response& res) {
    serve(req, res, nullptr);
  };
  auto with_body = [serve](const httplib::Request& req, httplib::Response& res,
                           const httplib::ContentReader& reader) { serve(req, res, &reader); };
  // Every method goes through the one route table, which knows 404 from 405.
  s.Get(".*", handler).Options(".*", handler);
  s.Post(".*", with_body).Put(".*", with_body).Patch(".*", with_body).Delete(".*", with_body);

  // Responses the library makes itself (413 body too large, 400 bad request line) become JSON.
  s.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req,
                                                              httplib::Response& res) {
    TagRequest(req, res);
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    Code code = CodeForHttpStatus(res.status);
    std::string msg = res.status == 413 ? "request body is too large" : "the request was rejected";
    WriteJson(res, res.status, ErrorJson(Status(code, msg)));
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
        TagRequest(req, res);
        WriteJson(res, 500, ErrorJson(Internal("unexpected error while handling the request")));
      });
  s.set_tcp_nodelay(true);  // without it every response waits ~40 ms (Nagle + delayed ACK)
  s.set_payload_max_length(impl_->options.body_limits.Largest());
  // The library sets only SO_REUSEPORT on Linux, so a second server bound the same port and the
  // kernel split connections between the two (one key answered two scope ids in turn). With
  // SO_REUSEADDR alone a second bind fails: "address in use".
  s.set_socket_options([](socket_t fd) {
    int yes = 1;
    (void)::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
}

HttpServer::~HttpServer() = default;

const Router& HttpServer::router() const { return impl_->router; }

void HttpServer::AddRawRoute(const std::string& path, RawHandler handler) {
  impl_->raw[path] = std::move(handler);
}

Status HttpServer::Bind() {
  const auto& o = impl_->options;
  if (o.tls || !o.tls_cert.empty()) PC_RETURN_IF_ERROR(impl_->server.UseTls(o.tls_cert, o.tls_key));
  if (o.port == 0) {
    impl_->port = impl_->server.bind_to_any_port(o.host);
    if (impl_->port <= 0) return Internal("cannot listen on " + o.host + ": no free port");
  } else {
    if (!impl_->server.bind_to_port(o.host, o.port))
      return Internal("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                      " (in use, or not an address of this machine)");
    impl_->port = o.port;
  }
  if (!impl_->server.RaiseBacklog(kListenBacklog))
    return Internal("cannot set the listen backlog: " + std::string(std::strerror(errno)));
  return Status::Ok();
}

int HttpServer::port() const { return impl_->port; }

Status HttpServer::Serve() {
  bool clean = impl_->server.listen_after_bind();
  if (!clean && !impl_->stopping) return Internal("the HTTP server stopped with an error");
  return Status::Ok();
}

void HttpServer::Stop() {
  impl_->stopping = true;
  impl_->server.stop();
}

}  // namespace pc
