#include "app/providers.h"

#include "providers/openai_embedder.h"
#include "providers/openai_reranker.h"
#include "search/hash_embedder.h"

namespace pc {

Result<std::unique_ptr<Embedder>> MakeEmbedder(const Config& config) {
  if (config.embed_provider == "hash")
    return std::unique_ptr<Embedder>(std::make_unique<HashEmbedder>(
        config.embed_dimension > 0 ? static_cast<int>(config.embed_dimension) : kDefaultHashDimension));
  if (config.embed_provider == "openai") {
    OpenAiEmbedderOptions o;
    o.base_url = config.embed_base_url;
    o.model = config.embed_model;
    o.api_key = config.embed_api_key;
    o.dimension = static_cast<int>(config.embed_dimension);
    PC_ASSIGN_OR_RETURN(auto e, OpenAiEmbedder::Create(o));
    return std::unique_ptr<Embedder>(std::move(e));
  }
  return std::unique_ptr<Embedder>();
}

Result<std::unique_ptr<Reranker>> MakeReranker(const Config& config) {
  if (config.rerank_provider != "openai") return std::unique_ptr<Reranker>();
  HttpRerankerOptions o;
  o.base_url = config.rerank_base_url;
  o.model = config.rerank_model;
  o.api_key = config.rerank_api_key;
  PC_ASSIGN_OR_RETURN(auto r, HttpReranker::Create(o));
  return std::unique_ptr<Reranker>(std::move(r));
}

}  // namespace pc
