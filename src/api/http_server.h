// The HTTP API: one route table, JSON errors for everything that fails, graceful stop.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "api/services.h"

namespace pc {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8787;
  int threads = 64;  // worker threads; each open keep-alive connection holds one
  size_t max_body_bytes = 8 * 1024 * 1024;   // larger bodies answer 413
  int keep_alive_max_requests = 10000;       // cpp-httplib's default of 5 reconnects too often
};

class HttpServer {
 public:
  HttpServer(Services services, HttpOptions options);
  ~HttpServer();

  // Binds the socket (port 0 = any free port); after this, port() is known.
  Status Bind();
  int port() const;
  // Serves until Stop(); returns when the server has stopped.
  Status Serve();
  // Thread-safe; makes Serve() return after in-flight requests finish.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pc
