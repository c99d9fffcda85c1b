#include "providers/openai_reranker.h"

#include <httplib.h>

#include <mutex>

#include <nlohmann/json.hpp>

namespace pc {

struct HttpReranker::Http {
  std::mutex mu;  // cpp-httplib clients are not safe for concurrent requests
  std::unique_ptr<httplib::Client> client;
  std::string path_prefix;
};

HttpReranker::HttpReranker(HttpRerankerOptions options, std::unique_ptr<Http> http)
    : options_(std::move(options)), http_(std::move(http)) {}
HttpReranker::~HttpReranker() = default;

Result<std::unique_ptr<HttpReranker>> HttpReranker::Create(HttpRerankerOptions options) {
  auto http = std::make_unique<Http>();
  size_t scheme = options.base_url.find("://");
  if (scheme == std::string::npos) return InvalidArgument("rerank_base_url is not a URL");
  size_t slash = options.base_url.find('/', scheme + 3);
  std::string origin = options.base_url.substr(0, slash);
  http->path_prefix = slash == std::string::npos ? "" : options.base_url.substr(slash);
  while (!http->path_prefix.empty() && http->path_prefix.back() == '/') http->path_prefix.pop_back();
  http->client = std::make_unique<httplib::Client>(origin);
  http->client->set_connection_timeout(options.timeout_seconds, 0);
  http->client->set_read_timeout(options.timeout_seconds, 0);
  http->client->set_tcp_nodelay(true);
  if (!options.api_key.empty()) http->client->set_bearer_token_auth(options.api_key);
  return std::unique_ptr<HttpReranker>(new HttpReranker(std::move(options), std::move(http)));
}

Result<std::vector<double>> HttpReranker::Score(const std::string& query,
                                                const std::vector<std::string>& texts) {
  if (texts.empty()) return std::vector<double>{};
  nlohmann::json body{{"model", options_.model}, {"query", query}, {"documents", texts}};
  std::unique_lock<std::mutex> lock(http_->mu);
  httplib::Result res = http_->client->Post(
      http_->path_prefix + "/rerank",
      body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
  lock.unlock();
  if (!res)
    return Status(Code::kProviderUnavailable, "rerank endpoint unreachable (" + httplib::to_string(res.error()) + " error)");
  if (res->status != 200)
    return Status(Code::kProviderUnavailable, "rerank endpoint answered HTTP " + std::to_string(res->status));
  nlohmann::json answer = nlohmann::json::parse(res->body, nullptr, false);
  const nlohmann::json* results = nullptr;
  if (answer.is_array()) results = &answer;  // TEI
  else if (answer.is_object() && answer.contains("results") && answer["results"].is_array())
    results = &answer["results"];
  if (!results) return Status(Code::kProviderUnavailable, "rerank endpoint answered an unknown shape");
  std::vector<double> scores(texts.size(), 0.0);
  std::vector<bool> seen(texts.size(), false);
  for (const auto& r : *results) {
    if (!r.is_object() || !r.contains("index") || !r["index"].is_number_unsigned())
      return Status(Code::kProviderUnavailable, "rerank result without an index");
    size_t i = r["index"].get<size_t>();
    const char* key = r.contains("relevance_score") ? "relevance_score" : "score";
    if (i >= texts.size() || !r.contains(key) || !r[key].is_number())
      return Status(Code::kProviderUnavailable, "rerank result out of range or without a score");
    scores[i] = r[key].get<double>();
    seen[i] = true;
  }
  for (bool s : seen)
    if (!s) return Status(Code::kProviderUnavailable, "rerank endpoint skipped a document");
  return scores;
}

}  // namespace pc
