#include "api/tls.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

namespace pc {
namespace {

constexpr size_t kMaxPemBytes = 1 << 20;  // a certificate chain or key is a few KiB

// The first (root-cause) reason OpenSSL queued on this thread, e.g. "no start line"; clears the
// queue.
std::string OpenSslReason() {
  std::string reason;
  for (unsigned long e; (e = ERR_get_error()) != 0;) {
    if (!reason.empty()) continue;
    const char* r = ERR_reason_error_string(e);
    reason = r ? r : "error " + std::to_string(ERR_GET_REASON(e));
  }
  return reason.empty() ? "unknown error" : reason;
}

// A PEM file's text, with the system's reason when it cannot be read (OpenSSL's is "system lib").
Result<std::string> ReadPem(const char* setting, const std::string& path) {
  if (path.empty())
    return InvalidArgument(std::string(setting) + " is empty: TLS needs tls_cert and tls_key");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return InvalidArgument(std::string(setting) + " " + path + ": " + std::strerror(errno));
  std::string text;
  char chunk[4096];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0 && text.size() < kMaxPemBytes;)
    text.append(chunk, n);
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) return InvalidArgument(std::string(setting) + " " + path + ": cannot read it");
  return text;
}

// An encrypted key would make OpenSSL ask for its passphrase on the terminal: refuse it instead.
int NoPassphrase(char*, int, int, void*) { return 0; }

// OpenSSL 3 says only "unsupported" of a file without a key: the messages are ours.
Status KeyError(const std::string& path, bool encrypted) {
  ERR_clear_error();
  if (encrypted)
    return InvalidArgument("tls_key " + path +
                           ": the key is encrypted and serve cannot ask for its passphrase; "
                           "decrypt it (openssl pkey -in " +
                           path + " -out KEY.pem) and keep that file private");
  return InvalidArgument("tls_key " + path + ": no PEM private key in it");
}

struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

Result<std::unique_ptr<EVP_PKEY, KeyFree>> ReadKey(const std::string& path) {
  PC_ASSIGN_OR_RETURN(std::string text, ReadPem("tls_key", path));
  BIO* bio = BIO_new_mem_buf(text.data(), static_cast<int>(text.size()));
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(bio, nullptr, NoPassphrase, nullptr) : nullptr;
  BIO_free(bio);
  const bool encrypted = text.find("ENCRYPTED") != std::string::npos;
  OPENSSL_cleanse(text.data(), text.size());
  if (!key) return KeyError(path, encrypted);
  return std::unique_ptr<EVP_PKEY, KeyFree>(key);
}

}  // namespace

Result<TlsContext> LoadTlsContext(const std::string& cert_path, const std::string& key_path) {
  PC_RETURN_IF_ERROR(ReadPem("tls_cert", cert_path).status());
  ERR_clear_error();
  TlsContext ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return Internal("cannot create a TLS context (" + OpenSslReason() + ")");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_options(
      ctx.get(), SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  // Idle keep-alive connections give back their record buffers (~34 KiB each) while they wait.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_default_passwd_cb(ctx.get(), NoPassphrase);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_path.c_str()) != 1)
    return InvalidArgument("tls_cert " + cert_path + ": no PEM certificate chain in it (" +
                           OpenSslReason() + ")");
  PC_ASSIGN_OR_RETURN(auto key, ReadKey(key_path));
  if (SSL_CTX_use_PrivateKey(ctx.get(), key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    ERR_clear_error();  // "key values mismatch" or "no certificate assigned" (another key type)
    return InvalidArgument("tls_key " + key_path + " does not match the certificate in tls_cert " +
                           cert_path);
  }
  return ctx;
}

TlsSession::TlsSession(SSL_CTX* ctx, int fd) : ssl_(SSL_new(ctx)) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
      (ssl_ && SSL_set_fd(ssl_, fd) != 1)) {
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  ERR_clear_error();
}

TlsSession::~TlsSession() {
  SSL_free(ssl_);
  ERR_clear_error();  // nothing of this connection stays queued for the worker's next one
}

ssize_t TlsSession::Step(int rc) {
  want_ = 0;
  switch (SSL_get_error(ssl_, rc)) {
    case SSL_ERROR_WANT_READ:
      want_ = POLLIN;
      return 0;
    case SSL_ERROR_WANT_WRITE:
      want_ = POLLOUT;
      return 0;
    case SSL_ERROR_ZERO_RETURN:  // the peer's close_notify: ours may still go out
      return -1;
    default:  // after SSL_ERROR_SSL or _SYSCALL the session must not be shut down cleanly
      fatal_ = true;
      return -1;
  }
}

int TlsSession::Accept() {
  if (!ssl_) return -1;
  ERR_clear_error();
  const int rc = SSL_accept(ssl_);
  if (rc == 1) return 1;
  if (Step(rc) == 0) return 0;
  for (unsigned long e; (e = ERR_get_error()) != 0;)
    if (ERR_GET_LIB(e) == ERR_LIB_SSL && ERR_GET_REASON(e) == SSL_R_HTTP_REQUEST)
      plain_http_ = true;
  return -1;
}

ssize_t TlsSession::Read(char* data, size_t size) {
  if (!ssl_ || size == 0) return -1;
  ERR_clear_error();
  const int n = SSL_read(ssl_, data, static_cast<int>(std::min<size_t>(size, INT_MAX)));
  return n > 0 ? n : Step(n);
}

ssize_t TlsSession::Write(const char* data, size_t size) {
  if (!ssl_ || size == 0) return -1;
  ERR_clear_error();
  const int n = SSL_write(ssl_, data, static_cast<int>(std::min<size_t>(size, INT_MAX)));
  return n > 0 ? n : Step(n);
}

bool TlsSession::pending() const { return ssl_ && SSL_has_pending(ssl_) == 1; }

void TlsSession::Shutdown() {
  if (!ssl_ || fatal_ || !SSL_is_init_finished(ssl_)) return;
  ERR_clear_error();
  (void)SSL_shutdown(ssl_);
}

}  // namespace pc
