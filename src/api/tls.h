// TLS for the HTTP server (OpenSSL, as cpp-httplib's SSLServer): the context made from the
// operator's PEM files, and one connection's session on a non-blocking socket. A session never
// waits: each call that cannot finish says what it waits for (readable or writable), and the
// caller polls within its own deadlines, so a TLS connection keeps every limit of a plain one
// (api/http_connections.h).
#pragma once

#include <openssl/ssl.h>
#include <sys/types.h>

#include <memory>
#include <string>

#include "common/status.h"

namespace pc {

struct TlsContextFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using TlsContext = std::unique_ptr<SSL_CTX, TlsContextFree>;

// A server context: the certificate chain (PEM, leaf first) and its unencrypted private key
// (PEM), TLS 1.2 at least, no compression or renegotiation. A file that cannot be read or parsed,
// or a key that does not match the certificate, is InvalidArgument naming the setting and file
// (e.g. "tls_cert /x.pem: No such file or directory").
Result<TlsContext> LoadTlsContext(const std::string& cert_path, const std::string& key_path);

// One server-side connection. Not thread-safe (one connection's worker uses it); `ctx` outlives it.
class TlsSession {
 public:
  // Puts `fd` in non-blocking mode; the caller still owns and closes it.
  TlsSession(SSL_CTX* ctx, int fd);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  // What a call that could not finish waits for: POLLIN or POLLOUT (0 when it failed instead).
  short want() const { return want_; }

  // One step of the handshake: 1 done, 0 wait for want() and call again, -1 failed.
  int Accept();
  // After a failed Accept: the client sent a plain HTTP request to this TLS port.
  bool peer_spoke_plain_http() const { return plain_http_; }

  // Bytes read or written (> 0); 0 = wait for want() and call again with the same arguments;
  // -1 = the peer closed the session or it failed.
  ssize_t Read(char* data, size_t size);
  ssize_t Write(const char* data, size_t size);
  // Decrypted (or received but not yet decrypted) bytes wait inside the session: a poll of the
  // socket would not see them.
  bool pending() const;
  // Sends close_notify, without waiting for the peer's.
  void Shutdown();

 private:
  ssize_t Step(int rc);  // maps an SSL_* result to the conventions above

  SSL* ssl_;
  short want_ = 0;
  bool plain_http_ = false;
  bool fatal_ = false;  // a TLS or socket error: no close_notify after it
};

}  // namespace pc
