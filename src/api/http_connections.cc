#include "api/http_connections.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <iostream>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "ops/metrics.h"

namespace pc {
namespace {

using Clock = std::chrono::steady_clock;

thread_local bool tl_close_after_response = false;
// Set while the current request's header section was read, when it held a folded line (obs-fold)
// or a NUL: the library drops a folded line silently, so only the bytes show it.
thread_local bool tl_headers_malformed = false;

// How often a connection waiting for its next request looks whether the server is stopping.
constexpr int kStopCheckMs = 100;
// Workers beyond max_connections: a connection over a limit still gets a thread at once, to be
// answered 503 instead of waiting unseen in the queue.
constexpr size_t kSpareWorkers = 16;
constexpr size_t kReadChunk = 16 * 1024;
// After answering a plain HTTP request on the TLS port, how long and how much of the rest of it
// is read and dropped before closing.
constexpr auto kPlainHttpDrain = std::chrono::milliseconds(500);
constexpr size_t kPlainHttpDrainBytes = 64 * 1024;

int MillisUntil(Clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 1 << 30));
}

bool Poll(socket_t fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

std::string FormatAddress(const sockaddr_storage& addr, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  return text;
}

void AddressOf(socket_t fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  port = 0;
  int rc = peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len)
                : getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ip = rc == 0 ? FormatAddress(addr, port) : "";
}

// Workers made on demand, up to a cap. A job waits only when every worker is busy at the cap.
class ElasticPool final : public httplib::TaskQueue {
 public:
  explicit ElasticPool(size_t max_threads) : max_(max_threads) {}
  ~ElasticPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(fn));
    if (idle_ < jobs_.size() && threads_.size() < max_) threads_.emplace_back([this] { Work(); });
    cv_.notify_one();
  }

  void shutdown() override {  // runs what is queued, then joins every worker
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }

 private:
  void Work() {
    // A write to a connection the peer closed raises SIGPIPE; plain sends say MSG_NOSIGNAL, but
    // OpenSSL writes with write(2). Blocked here, it only makes the write fail with EPIPE.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      ++idle_;
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) return;
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      try {
        job();
      } catch (const std::exception& e) {  // no exception leaves a worker: it keeps serving
        std::cerr << "powercontext: unexpected error on an HTTP connection: " << e.what() << "\n";
      } catch (...) {
        std::cerr << "powercontext: unexpected error on an HTTP connection\n";
      }
      lock.lock();
    }
  }

  const size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stop_ = false;
};

// One connection's reads and writes, in plain HTTP or through a TLS session. Bytes received past
// the current request stay in the buffer for the next one (the library's own stream dropped them:
// pipelined requests were lost). Every read is bounded by the current phase's deadline (headers,
// then body) as well as read_timeout.
class ConnStream final : public httplib::Stream {
 public:
  // `tls` (null: plain HTTP) has finished its handshake on `fd`.
  ConnStream(socket_t fd, const ConnectionLimits& limits, TlsSession* tls)
      : fd_(fd), limits_(limits), tls_(tls) {}

  void BeginPhase(Clock::time_point deadline) { deadline_ = deadline; }
  // The header section starts (the request line first): read() checks each of its bytes, until
  // the blank line ends it or the body phase begins.
  void BeginHeaders() {
    scanning_headers_ = true;
    at_line_start_ = false;
  }
  void EndHeaders() { scanning_headers_ = false; }
  bool buffered() const { return off_ < buf_.size() || (tls_ && tls_->pending()); }
  bool timed_out() const { return timed_out_; }

  bool is_readable() const override { return buffered() || Poll(fd_, POLLIN, ReadBudgetMs()); }
  bool is_writable() const override { return Poll(fd_, POLLOUT, WriteBudgetMs()); }

  ssize_t read(char* ptr, size_t size) override {
    if (off_ == buf_.size() && !Fill()) return -1;
    const size_t n = std::min(size, buf_.size() - off_);
    std::memcpy(ptr, buf_.data() + off_, n);
    if (scanning_headers_) ScanHeaderBytes(ptr, n);
    off_ += n;
    if (off_ == buf_.size()) {
      buf_.clear();
      off_ = 0;
    }
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (tls_) return size == 0 ? 0 : WriteTls(ptr, size);
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(fd_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(fd_, false, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  // RFC 9112 §5.2: a line of the header section that starts with a space or tab continues the
  // previous one (obs-fold), which a server must refuse or unfold; RFC 9110 §5.5: no NUL.
  void ScanHeaderBytes(const char* p, size_t n) {
    for (size_t i = 0; i < n && scanning_headers_; ++i) {
      const char c = p[i];
      if (c == '\0' || (at_line_start_ && (c == ' ' || c == '\t'))) tl_headers_malformed = true;
      if (at_line_start_ && (c == '\r' || c == '\n')) {
        if (c == '\n') scanning_headers_ = false;  // the blank line: the body follows
        continue;
      }
      at_line_start_ = c == '\n';
    }
  }

  int ReadBudgetMs() const {
    return std::min(static_cast<int>(limits_.read_timeout.count()), MillisUntil(deadline_));
  }
  int WriteBudgetMs() const { return static_cast<int>(limits_.read_timeout.count()); }

  bool Fill() {
    char chunk[kReadChunk];
    const ssize_t n = tls_ ? ReadTls(chunk, sizeof chunk) : ReadPlain(chunk, sizeof chunk);
    if (n <= 0) return false;
    buf_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  ssize_t ReadPlain(char* data, size_t size) {
    const int budget = ReadBudgetMs();
    if (budget <= 0 || !Poll(fd_, POLLIN, budget)) {
      timed_out_ = true;
      return -1;
    }
    ssize_t n;
    do {
      n = ::recv(fd_, data, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  // The session does not wait (the socket is non-blocking): this waits for what it asks, within
  // the phase's budget, so a record trickled byte by byte is cut off like a slow header.
  ssize_t ReadTls(char* data, size_t size) {
    while (true) {
      const ssize_t n = tls_->Read(data, size);
      if (n != 0) return n;
      const int budget = ReadBudgetMs();
      if (budget <= 0 || !Poll(fd_, tls_->want(), budget)) {
        timed_out_ = true;
        return -1;
      }
    }
  }

  ssize_t WriteTls(const char* data, size_t size) {
    while (true) {
      const ssize_t n = tls_->Write(data, size);
      if (n != 0) return n;
      if (!Poll(fd_, tls_->want(), WriteBudgetMs())) return -1;
    }
  }

  const socket_t fd_;
  const ConnectionLimits& limits_;
  TlsSession* const tls_;
  std::string buf_;
  size_t off_ = 0;
  Clock::time_point deadline_ = Clock::now();
  bool timed_out_ = false;
  bool scanning_headers_ = false;
  bool at_line_start_ = false;
};

// A plain HTTP request reached the TLS port (an http:// URL for an https:// server): answer it in
// plain HTTP, so the client sees why instead of a dropped connection. Then the request's bytes
// are drained briefly, so closing does not reset the connection before the answer is read.
void AnswerPlainHttpOnTlsPort(socket_t fd) {
  static const std::string kBody =
      R"({"error":{"code":"invalid_request","message":"this port serves HTTPS only: use an https:// URL"}})";
  static const std::string kAnswer =
      "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
      "Connection: close\r\nContent-Length: " +
      std::to_string(kBody.size()) + "\r\n\r\n" + kBody;
  (void)::send(fd, kAnswer.data(), kAnswer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  const auto until = Clock::now() + kPlainHttpDrain;
  char chunk[kReadChunk];
  for (size_t drained = 0;
       drained < kPlainHttpDrainBytes && Poll(fd, POLLIN, MillisUntil(until));) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n <= 0) break;
    drained += static_cast<size_t>(n);
  }
}

// The TLS handshake of a new connection, within `deadline` (the header deadline): a client that
// connects and says nothing, or trickles its hello, is cut off like a slowloris. A server that is
// stopping gives up at once.
bool Handshake(TlsSession& tls, socket_t fd, Clock::time_point deadline,
               const std::atomic<socket_t>& listening) {
  int rc;
  while ((rc = tls.Accept()) == 0) {
    bool ready = false;
    while (!ready && listening != INVALID_SOCKET && Clock::now() < deadline)
      ready = Poll(fd, tls.want(), std::min(kStopCheckMs, MillisUntil(deadline)));
    if (!ready) return false;
  }
  if (rc < 0 && tls.peer_spoke_plain_http()) AnswerPlainHttpOnTlsPort(fd);
  return rc > 0;
}

}  // namespace

void CloseConnectionAfterResponse() { tl_close_after_response = true; }
bool RequestHeadersMalformed() { return tl_headers_malformed; }

// The open connections, for the limits: how many, per address, which are idle (waiting for their
// next request) and so may be evicted. An entry leaves the table before its socket is closed, so
// an eviction (shutdown of the socket, under the mutex) never touches a reused descriptor.
struct GuardedHttpServer::Table {
  struct Conn {
    socket_t fd;
    std::string address;
    bool idle = false;
    bool evicted = false;
    Clock::time_point idle_since;
  };
  using Handle = std::list<Conn>::iterator;

  std::optional<Handle> Open(socket_t fd, const std::string& address,
                             const ConnectionLimits& limits) {
    std::lock_guard<std::mutex> lock(mu);
    if (per_address[address] >= limits.max_per_address && !EvictOldestIdle(&address)) {
      return std::nullopt;
    }
    if (live >= limits.max_connections && !EvictOldestIdle(nullptr)) {
      return std::nullopt;
    }
    ++live;
    ++per_address[address];
    conns.push_back(Conn{fd, address, false, false, Clock::now()});
    return std::prev(conns.end());
  }

  // Marks the connection idle or busy; false when it was evicted meanwhile.
  bool SetIdle(Handle h, bool idle) {
    std::lock_guard<std::mutex> lock(mu);
    if (h->evicted) return false;
    h->idle = idle;
    h->idle_since = Clock::now();
    return true;
  }

  void Close(Handle h) {
    std::lock_guard<std::mutex> lock(mu);
    if (!h->evicted) Forget(*h);
    conns.erase(h);
  }

 private:
  void Forget(const Conn& c) {
    --live;
    auto it = per_address.find(c.address);
    if (it != per_address.end() && --it->second == 0) per_address.erase(it);
  }

  // Closes the idle connection (of `address`, or any) that has waited longest. Under mu.
  bool EvictOldestIdle(const std::string* address) {
    Conn* oldest = nullptr;
    for (Conn& c : conns)
      if (c.idle && !c.evicted && (!address || c.address == *address) &&
          (!oldest || c.idle_since < oldest->idle_since))
        oldest = &c;
    if (!oldest) return false;
    oldest->evicted = true;
    Forget(*oldest);
    ::shutdown(oldest->fd, SHUT_RDWR);  // wakes its wait at once
    return true;
  }

 public:
  std::mutex mu;
  std::list<Conn> conns;
  std::map<std::string, size_t> per_address;  // live (not evicted) connections per address
  size_t live = 0;
};

GuardedHttpServer::GuardedHttpServer(ConnectionLimits limits)
    : limits_(limits), table_(std::make_unique<Table>()) {
  const size_t workers = limits_.max_connections + kSpareWorkers;
  new_task_queue = [workers] { return new ElasticPool(workers); };
}

GuardedHttpServer::~GuardedHttpServer() = default;

bool GuardedHttpServer::RaiseBacklog(int backlog) { return ::listen(svr_sock_, backlog) == 0; }

Status GuardedHttpServer::UseTls(const std::string& cert_path, const std::string& key_path) {
  PC_ASSIGN_OR_RETURN(tls_, LoadTlsContext(cert_path, key_path));
  return Status::Ok();
}

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  std::string address;
  int port = 0;
  AddressOf(sock, true, address, port);
  std::optional<Table::Handle> entry = table_->Open(sock, address, limits_);
  if (!entry) {
    // Over a limit. A TLS client would be answered only after a handshake, which the server does
    // not spend on a connection it refuses: it is just closed.
    static constexpr char kBusy[] =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
        "Connection: close\r\nContent-Length: 111\r\n\r\n"
        "{\"error\":{\"code\":\"rate_limited\",\"message\":\"too many connections from this "
        "address\","
        "\"details\":{\"retry_after\":1}}}";
    if (!tls_) (void)::send(sock, kBusy, sizeof kBusy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return true;
  }
  ops::metrics().HttpConnectionOpened();
  std::unique_ptr<TlsSession> tls;
  if (tls_) tls = std::make_unique<TlsSession>(tls_.get(), sock);
  const bool secured =
      !tls || Handshake(*tls, sock, Clock::now() + limits_.header_deadline, svr_sock_);
  ConnStream stream(sock, limits_, tls.get());
  for (size_t n = 0; secured && n < limits_.keep_alive_max_requests; ++n) {
    if (!stream.buffered()) {
      // Waiting for the next request: idle, so evictable, and only for idle_timeout.
      if (!table_->SetIdle(*entry, true)) break;
      const auto until = Clock::now() + limits_.idle_timeout;
      bool ready = false;
      while (!ready && svr_sock_ != INVALID_SOCKET && Clock::now() < until)
        ready = Poll(sock, POLLIN, std::min(kStopCheckMs, MillisUntil(until)));
      if (!table_->SetIdle(*entry, false) || !ready) break;
    }
    stream.BeginPhase(Clock::now() + limits_.header_deadline);
    tl_close_after_response = false;
    tl_headers_malformed = false;
    stream.BeginHeaders();
    bool closed = false, headers_read = false;
    const bool last = n + 1 == limits_.keep_alive_max_requests || svr_sock_ == INVALID_SOCKET;
    const bool ok = process_request(stream, last, closed, [&](httplib::Request&) {
      headers_read = true;
      stream.EndHeaders();
      stream.BeginPhase(Clock::now() + limits_.body_deadline);
    });
    if (stream.timed_out()) break;
    if (!ok || closed || tl_close_after_response || !headers_read) break;
  }
  if (tls && secured) tls->Shutdown();
  tls.reset();
  table_->Close(*entry);
  ops::metrics().HttpConnectionClosed();
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

}  // namespace pc
