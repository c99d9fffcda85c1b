// Connection handling for the HTTP server: how sockets get workers, how long a slow or idle one
// may keep one, and how many one client address may hold. cpp-httplib gives every connection a
// worker thread for as long as it is open, with no deadline for a request's headers, so 70
// slowloris sockets or 200 idle keep-alive ones left new clients unanswered (a fixed pool of 64).
// Here:
//   - workers grow on demand up to `max_connections`, so a new client gets a thread at once;
//   - a request's headers must arrive within `header_deadline`, its body within `body_deadline`;
//     a connection waits `idle_timeout` for its next request, and is closed at once when the
//     server is under pressure (idle connections are evicted, oldest first);
//   - one client address holds at most `max_per_address` connections: past that its oldest idle
//     one is evicted, and when none is idle the new one is answered 503 and closed;
//   - bytes read past a request stay with the connection (pipelined requests are answered in turn);
//   - with TLS on, the handshake must finish within `header_deadline` too, and reads and writes go
//     through the session (api/tls.h) under the same deadlines.
#pragma once

#include <httplib.h>

#include <memory>
#include <string>

#include "api/http_server.h"  // ConnectionLimits
#include "api/tls.h"
#include "common/status.h"

namespace pc {

// Asks the connection that runs the current request (this thread's) to close after the response:
// cpp-httplib 0.11 ignores a handler's "Connection: close" header.
void CloseConnectionAfterResponse();

// Whether the current request's (this thread's) header section held a folded line or a NUL byte,
// which the library would drop or keep silently; the edge guard refuses such a request.
bool RequestHeadersMalformed();

// A cpp-httplib server whose connections follow ConnectionLimits.
class GuardedHttpServer : public httplib::Server {
 public:
  explicit GuardedHttpServer(ConnectionLimits limits);
  ~GuardedHttpServer() override;

  // cpp-httplib 0.11 listens with a backlog of 5: bursts of new connections overflow it and the
  // kernel drops handshakes. Calling listen() again on the bound socket raises it.
  bool RaiseBacklog(int backlog);

  // Serves TLS (only) with this PEM certificate chain and private key; call before serving.
  // InvalidArgument naming the setting and file when one cannot be read, parsed or paired.
  Status UseTls(const std::string& cert_path, const std::string& key_path);

 private:
  bool process_and_close_socket(socket_t sock) override;

  struct Table;
  ConnectionLimits limits_;
  std::unique_ptr<Table> table_;
  TlsContext tls_;  // null: plain HTTP
};

}  // namespace pc
