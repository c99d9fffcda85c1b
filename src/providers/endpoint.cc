#include "providers/endpoint.h"

#include <httplib.h>

#include <mutex>

namespace pc {

struct Endpoint::Impl {
  std::mutex mu;
  std::unique_ptr<httplib::Client> client;
  std::string path_prefix;  // e.g. "/v1"
};

Endpoint::Endpoint(std::string base_url, std::unique_ptr<Impl> impl)
    : base_url_(std::move(base_url)), impl_(std::move(impl)) {}
Endpoint::~Endpoint() = default;

Result<std::unique_ptr<Endpoint>> Endpoint::Open(const std::string& setting, const std::string& base_url,
                                                 const std::string& api_key, int timeout_seconds) {
  size_t scheme = base_url.find("://");
  if (scheme == std::string::npos || base_url.size() <= scheme + 3)
    return InvalidArgument(setting + " is not a URL: " + base_url);
  size_t slash = base_url.find('/', scheme + 3);
  auto impl = std::make_unique<Impl>();
  impl->path_prefix = slash == std::string::npos ? "" : base_url.substr(slash);
  while (!impl->path_prefix.empty() && impl->path_prefix.back() == '/') impl->path_prefix.pop_back();
  impl->client = std::make_unique<httplib::Client>(base_url.substr(0, slash));
  if (!impl->client->is_valid()) return InvalidArgument(setting + " is not a usable URL: " + base_url);
  impl->client->set_connection_timeout(timeout_seconds, 0);
  impl->client->set_read_timeout(timeout_seconds, 0);
  impl->client->set_write_timeout(timeout_seconds, 0);
  impl->client->set_tcp_nodelay(true);
  if (!api_key.empty()) impl->client->set_bearer_token_auth(api_key);
  return std::unique_ptr<Endpoint>(new Endpoint(base_url, std::move(impl)));
}

Result<HttpAnswer> Endpoint::PostJson(const std::string& path, const std::string& body) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  httplib::Result res = impl_->client->Post(impl_->path_prefix + path, body, "application/json");
  if (!res)
    return Status(Code::kProviderUnavailable, base_url_ + path + " unreachable (" +
                                                  httplib::to_string(res.error()) + " error)");
  return HttpAnswer{res->status, res->body};
}

}  // namespace pc
