#include "api/http_server.h"

#include <httplib.h>

#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <cctype>
#include <cstdio>
#include <functional>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "api/edge_guard.h"
#include "wire/error_map.h"
#include "api/http_connections.h"
#include "api/router.h"

namespace pc {

struct HttpServer::Impl {
  explicit Impl(HttpOptions o) : options(std::move(o)), server(options.connections) {}
  HttpOptions options;
  Router router;
  std::map<std::string, RawHandler> raw;  // set before Serve(), read-only after
  GuardedHttpServer server;
  int port = 0;
  std::atomic<bool> stopping{false};
};

namespace {

constexpr int kListenBacklog = 1024;  // bursts of new connections wait in the kernel, not fail

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
  thread_local std::mt19937_64 rng{std::random_device{}() ^
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
  e.has_transfer_encoding = req.has_header("Transfer-Encoding");
  e.has_body = e.has_transfer_encoding ||
               (e.content_length_headers > 0 && req.get_header_value("Content-Length") != "0");
  Status edge = CheckEdge(impl.options.edge, e);
  if (edge.ok()) return true;
  CloseConnectionAfterResponse();
  WriteJson(res, HttpStatusFor(edge.code()), ErrorJson(edge));
  return false;
}

void Handle(const HttpServer::Impl& impl, const httplib::Request& req, httplib::Response& res,
            std::string body) {
  if (auto raw = impl.raw.find(req.path); raw != impl.raw.end()) {
    std::map<std::string, std::string> headers;
    for (const auto& [k, v] : req.headers) {
      std::string name = k;
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      headers.emplace(std::move(name), v);
    }
    RawHttpReply reply = raw->second(req.method, headers, body);
    res.status = reply.status;
    if (!reply.body.empty() || !reply.content_type.empty()) res.set_content(reply.body, reply.content_type);
    return;
  }
  const Router& router = impl.router;
  // HEAD is GET without the body (RFC 9110); the library drops the body when it answers.
  ApiRequest api{req.method == "HEAD" ? "GET" : req.method, req.path, {}, {}, std::move(body)};
  for (const auto& [k, v] : req.params) api.query.emplace(k, v);
  ApiResponse out = router.Dispatch(api);
  if (out.status == 405) {
    auto& details = out.body["error"]["details"];
    if (details.contains("allow")) res.set_header("Allow", details["allow"].get<std::string>());
  }
  for (const auto& [name, value] : out.headers) res.set_header(name, value);
  WriteJson(res, out.status, out.body);
}

}  // namespace

HttpServer::HttpServer(Services services, HttpOptions options)
    : impl_(new Impl(std::move(options))) {
  AddRoutes(impl_->router, services);

  httplib::Server& s = impl_->server;
  const Impl& impl = *impl_;
  auto handler = [&impl](const httplib::Request& req, httplib::Response& res) {
    TagRequest(req, res);
    if (PassesEdge(impl, req, res)) Handle(impl, req, res, req.body);
  };
  // Bodies are read through a content reader: the library's plain handlers cap a body sent as
  // application/x-www-form-urlencoded (what `curl -d` sends) at 8 KiB before routing.
  const size_t max_body = impl_->options.max_body_bytes;
  auto with_body = [&impl, max_body](const httplib::Request& req, httplib::Response& res,
                             const httplib::ContentReader& reader) {
    TagRequest(req, res);
    if (!PassesEdge(impl, req, res)) return;
    std::string body;
    // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3).
    if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) {
      Handle(impl, req, res, std::move(body));
      return;
    }
    bool complete = reader([&body, max_body](const char* data, size_t n) {
      body.append(data, n);
      return body.size() <= max_body;
    });
    if (!complete) {
      // The library drains (skips) a body whose Content-Length is over the limit, then fails.
      bool too_large = body.size() > max_body ||
                       std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) >
                           max_body;
      CloseConnectionAfterResponse();
      WriteJson(res, too_large ? 413 : 400,
                ErrorJson(too_large ? TooLarge("request body is too large")
                                          .WithDetail("limit_bytes", static_cast<int64_t>(max_body))
                                    : InvalidArgument("could not read the request body")));
      return;
    }
    Handle(impl, req, res, std::move(body));
  };
  // Every method goes through the one route table, which knows 404 from 405.
  s.Get(".*", handler).Options(".*", handler);
  s.Post(".*", with_body).Put(".*", with_body).Patch(".*", with_body).Delete(".*", with_body);

  // Responses the library makes itself (413 body too large, 400 bad request line) become JSON.
  s.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request& req, httplib::Response& res) {
    TagRequest(req, res);
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    Code code = CodeForHttpStatus(res.status);
    std::string msg = res.status == 413 ? "request body is too large" : "the request was rejected";
    WriteJson(res, res.status, ErrorJson(Status(code, msg)));
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
    TagRequest(req, res);
    WriteJson(res, 500, ErrorJson(Internal("unexpected error while handling the request")));
  });
  s.set_tcp_nodelay(true);  // without it every response waits ~40 ms (Nagle + delayed ACK)
  s.set_payload_max_length(impl_->options.max_body_bytes);
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
