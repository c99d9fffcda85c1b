#include "api/http_server.h"

#include <httplib.h>

#include <atomic>

#include <nlohmann/json.hpp>

#include "api/error_map.h"
#include "api/router.h"

namespace pc {

struct HttpServer::Impl {
  HttpOptions options;
  Router router;
  httplib::Server server;
  int port = 0;
  std::atomic<bool> stopping{false};
};

namespace {

void WriteJson(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  // Replace rather than throw if a string somehow is not UTF-8: the response must always go out.
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

void Handle(const Router& router, const httplib::Request& req, httplib::Response& res) {
  ApiRequest api{req.method, req.path, {}, {}, req.body};
  for (const auto& [k, v] : req.params) api.query.emplace(k, v);
  ApiResponse out = router.Dispatch(api);
  if (out.status == 405) {
    auto& details = out.body["error"]["details"];
    if (details.contains("allow")) res.set_header("Allow", details["allow"].get<std::string>());
  }
  WriteJson(res, out.status, out.body);
}

}  // namespace

HttpServer::HttpServer(MemoryService& memory, HttpOptions options) : impl_(new Impl) {
  impl_->options = std::move(options);
  AddMemoryRoutes(impl_->router, memory);

  httplib::Server& s = impl_->server;
  const Router& router = impl_->router;
  auto handler = [&router](const httplib::Request& req, httplib::Response& res) {
    Handle(router, req, res);
  };
  // Every method goes through the one route table, which knows 404 from 405.
  s.Get(".*", handler).Post(".*", handler).Put(".*", handler).Patch(".*", handler);
  s.Delete(".*", handler).Options(".*", handler);

  // Responses the library makes itself (413 body too large, 400 bad request line) become JSON.
  s.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    Code code = CodeForHttpStatus(res.status);
    std::string msg = res.status == 413 ? "request body is too large" : "the request was rejected";
    WriteJson(res, res.status, ErrorJson(Status(code, msg)));
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    WriteJson(res, 500, ErrorJson(Internal("unexpected error while handling the request")));
  });
  s.set_tcp_nodelay(true);  // without it every response waits ~40 ms (Nagle + delayed ACK)
  s.set_keep_alive_max_count(static_cast<size_t>(impl_->options.keep_alive_max_requests));
  s.set_payload_max_length(impl_->options.max_body_bytes);
  int threads = impl_->options.threads;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
}

HttpServer::~HttpServer() = default;

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
