// Reranking over HTTP in the shape most servers share: POST {base_url}/rerank
// {"model", "query", "documents": [...]} answered by {"results": [{"index", "relevance_score"}]}
// (Jina, Cohere, llama.cpp server, vLLM) or by [{"index", "score"}] (TEI).
#pragma once

#include <memory>
#include <string>

#include "providers/endpoint.h"
#include "search/reranker.h"

namespace pc {

struct HttpRerankerOptions {
  std::string base_url;  // e.g. http://127.0.0.1:8080/v1
  std::string model;
  std::string api_key;
  int timeout_seconds = 30;
};

class HttpReranker final : public Reranker {
 public:
  static Result<std::unique_ptr<HttpReranker>> Create(HttpRerankerOptions options);
  ~HttpReranker() override;
  Result<std::vector<double>> Score(const std::string& query,
                                    const std::vector<std::string>& texts) override;

 private:
  HttpReranker(HttpRerankerOptions options, std::unique_ptr<Endpoint> http);
  HttpRerankerOptions options_;
  std::unique_ptr<Endpoint> http_;
};

}  // namespace pc
