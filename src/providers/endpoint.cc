#include "providers/endpoint.h"

#include <httplib.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

namespace pc {

// A pool of kept-alive connections: a request takes an idle one (or opens one), and gives it back
// when answered. So concurrent writes embed concurrently, and none pays a TCP connect.
struct Endpoint::Impl {
  std::string origin;       // e.g. "http://127.0.0.1:11434"
  std::string path_prefix;  // e.g. "/v1"
  std::string api_key;
  int timeout_seconds = 0;
  std::mutex mu;
  std::vector<std::unique_ptr<httplib::Client>> idle;

  std::unique_ptr<httplib::Client> NewClient() const {
    auto client = std::make_unique<httplib::Client>(origin);
    client->set_connection_timeout(timeout_seconds, 0);
    client->set_read_timeout(timeout_seconds, 0);
    client->set_write_timeout(timeout_seconds, 0);
    client->set_tcp_nodelay(true);
    client->set_keep_alive(true);
    if (!api_key.empty()) client->set_bearer_token_auth(api_key);
    return client;
  }
};

// The largest answer read from a model endpoint: a chat answer is a few KiB, an embeddings answer
// for a batch of 100 texts at 8,192 dimensions about 16 MiB as JSON text.
constexpr size_t kMaxAnswerBytes = size_t{32} << 20;

// Connections kept open beyond this many concurrent requests are closed when given back.
constexpr size_t kMaxIdleConnections = 16;

Endpoint::Endpoint(std::string base_url, std::unique_ptr<Impl> impl)
    : base_url_(std::move(base_url)), impl_(std::move(impl)) {}
Endpoint::~Endpoint() = default;

Result<std::unique_ptr<Endpoint>> Endpoint::Open(const std::string& setting,
                                                 const std::string& base_url,
                                                 const std::string& api_key, int timeout_seconds) {
  size_t scheme = base_url.find("://");
  if (scheme == std::string::npos || base_url.size() <= scheme + 3)
    return InvalidArgument(setting + " is not a URL: " + base_url);
  size_t slash = base_url.find('/', scheme + 3);
  auto impl = std::make_unique<Impl>();
  impl->path_prefix = slash == std::string::npos ? "" : base_url.substr(slash);
  while (!impl->path_prefix.empty() && impl->path_prefix.back() == '/')
    impl->path_prefix.pop_back();
  impl->origin = base_url.substr(0, slash);
  impl->api_key = api_key;
  impl->timeout_seconds = timeout_seconds;
  auto first = impl->NewClient();
  if (!first->is_valid()) return InvalidArgument(setting + " is not a usable URL: " + base_url);
  impl->idle.push_back(std::move(first));
  return std::unique_ptr<Endpoint>(new Endpoint(base_url, std::move(impl)));
}

Endpoint::Deadline Endpoint::CallDeadline() const {
  return std::chrono::steady_clock::now() + std::chrono::seconds(impl_->timeout_seconds);
}

int Endpoint::timeout_seconds() const { return impl_->timeout_seconds; }

bool Endpoint::BackOff(std::chrono::milliseconds backoff, Deadline deadline) {
  const auto now = std::chrono::steady_clock::now();
  if (now >= deadline) return false;
  std::this_thread::sleep_until(std::min(deadline, now + backoff));
  return std::chrono::steady_clock::now() < deadline;
}

Result<HttpAnswer> Endpoint::PostJson(const std::string& path, const std::string& body,
                                      Deadline deadline) {
  return Send(true, path, body, deadline);
}

Result<HttpAnswer> Endpoint::Get(const std::string& path, Deadline deadline) {
  return Send(false, path, "", deadline);
}

std::string Endpoint::Probe() {
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + seconds(std::min(impl_->timeout_seconds, 5));
  Result<HttpAnswer> res = Get("/models", deadline);
  if (!res.ok())
    return res.status().message().find("timed out") != std::string::npos ? "timeout"
                                                                         : "unavailable";
  if (res->status >= 200 && res->status < 300) return "ready";
  if (res->status == 401 || res->status == 403 || res->status == 404) return "misconfigured";
  return "unavailable";
}

Result<HttpAnswer> Endpoint::Send(bool post, const std::string& path, const std::string& body,
                                  Deadline deadline) {
  using namespace std::chrono;
  const auto start = steady_clock::now();
  const auto left = duration_cast<microseconds>(deadline - start);
  if (left.count() <= 0)
    return Status(Code::kProviderUnavailable, base_url_ + path + " timed out after " +
                                                  std::to_string(impl_->timeout_seconds) + " s");
  std::unique_ptr<httplib::Client> client;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (!impl_->idle.empty()) {
      client = std::move(impl_->idle.back());
      impl_->idle.pop_back();
    }
  }
  if (!client) client = impl_->NewClient();
  // Every wait of this attempt (connect, each read, each write) ends by the call's deadline.
  const time_t sec = static_cast<time_t>(left.count() / 1000000);
  const time_t usec = static_cast<time_t>(left.count() % 1000000);
  client->set_connection_timeout(sec, usec);
  client->set_read_timeout(sec, usec);
  client->set_write_timeout(sec, usec);
  // cpp-httplib reconnects by itself when the server has closed a kept-alive connection
  // (tests/unit/vector_search_test.cc: Endpoint). The answer is read into `answer`, and no further
  // than kMaxAnswerBytes: a model endpoint that streams without end costs that much at most.
  httplib::Request request;
  request.method = post ? "POST" : "GET";
  request.path = impl_->path_prefix + path;
  if (post) {
    request.body = body;
    request.set_header("Content-Type", "application/json");
  }
  std::string answer;
  bool too_large = false;
  request.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    if (answer.size() + n > kMaxAnswerBytes) {
      too_large = true;
      return false;
    }
    answer.append(data, n);
    return true;
  };
  httplib::Result res = client->send(request);
  if (res && !too_large) {  // a connection cut mid-answer is not kept
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->idle.size() < kMaxIdleConnections) impl_->idle.push_back(std::move(client));
  }
  if (too_large)
    return Status(Code::kProviderError, base_url_ + path + " answered more than " +
                                            std::to_string(kMaxAnswerBytes >> 20) +
                                            " MiB; the answer was not read")
        .WithDetail("limit_bytes", static_cast<int64_t>(kMaxAnswerBytes));
  if (!res) {
    if (steady_clock::now() + milliseconds(20) >= deadline)
      return Status(Code::kProviderUnavailable, base_url_ + path + " timed out after " +
                                                    std::to_string(impl_->timeout_seconds) + " s");
    return Status(Code::kProviderUnavailable, base_url_ + path + " unreachable (" +
                                                  httplib::to_string(res.error()) + " error)");
  }
  return HttpAnswer{res->status, std::move(answer)};
}

}  // namespace pc
