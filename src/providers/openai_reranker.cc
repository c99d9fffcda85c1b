#include "providers/openai_reranker.h"

#include <nlohmann/json.hpp>

#include "common/json_parse.h"

namespace pc {

HttpReranker::HttpReranker(HttpRerankerOptions options, std::unique_ptr<Endpoint> http)
    : options_(std::move(options)), http_(std::move(http)) {}
HttpReranker::~HttpReranker() = default;

Result<std::unique_ptr<HttpReranker>> HttpReranker::Create(HttpRerankerOptions options) {
  PC_ASSIGN_OR_RETURN(auto http, Endpoint::Open("rerank_base_url", options.base_url,
                                                options.api_key, options.timeout_seconds));
  return std::unique_ptr<HttpReranker>(new HttpReranker(std::move(options), std::move(http)));
}

Result<std::vector<double>> HttpReranker::Score(const std::string& query,
                                                const std::vector<std::string>& texts) {
  if (texts.empty()) return std::vector<double>{};
  nlohmann::json body{{"model", options_.model}, {"query", query}, {"documents", texts}};
  PC_ASSIGN_OR_RETURN(
      HttpAnswer res,
      http_->PostJson("/rerank",
                      body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  if (res.status != 200)
    return Status(Code::kProviderUnavailable,
                  "rerank endpoint answered HTTP " + std::to_string(res.status));
  nlohmann::json answer = ParseJson(res.body).value_or(nlohmann::json());
  const nlohmann::json* results = nullptr;
  if (answer.is_array())
    results = &answer;  // TEI
  else if (answer.is_object() && answer.contains("results") && answer["results"].is_array())
    results = &answer["results"];
  if (!results)
    return Status(Code::kProviderUnavailable, "rerank endpoint answered an unknown shape");
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
