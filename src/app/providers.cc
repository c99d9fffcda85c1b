#include "app/providers.h"

#include "providers/chat_reranker.h"
#include "providers/command_extractor.h"
#include "providers/openai_chat_extractor.h"
#include "providers/openai_embedder.h"
#include "providers/openai_reranker.h"
#include "providers/resilient.h"
#include "search/hash_embedder.h"
#include "search/static_embedder.h"

namespace pc {

Result<std::unique_ptr<Embedder>> MakeEmbedder(const Config& config) {
  if (config.embed_provider == "hash")
    return std::unique_ptr<Embedder>(std::make_unique<HashEmbedder>(
        config.embed_dimension > 0 ? static_cast<int>(config.embed_dimension)
                                   : kDefaultHashDimension));
  if (config.embed_provider == "static") {
    // Word vectors from a file (embed_model, or where scripts/install-deps vectors puts them);
    // a missing or damaged file stops the start-up with its name and what is wrong.
    PC_ASSIGN_OR_RETURN(auto e,
                        StaticEmbedder::Open(config.embed_model.empty() ? DefaultStaticVectorsFile()
                                                                        : config.embed_model));
    return std::unique_ptr<Embedder>(std::move(e));
  }
  if (config.embed_provider == "openai") {
    OpenAiEmbedderOptions o;
    o.base_url = config.embed_base_url;
    o.model = config.embed_model;
    o.api_key = config.embed_api_key;
    o.dimension = static_cast<int>(config.embed_dimension);
    o.timeout_seconds = static_cast<int>(config.embed_timeout_seconds);
    PC_ASSIGN_OR_RETURN(auto e, OpenAiEmbedder::Create(o));
    return std::unique_ptr<Embedder>(std::make_unique<ResilientEmbedder>(
        std::move(e), std::chrono::seconds(config.embed_rest_seconds)));
  }
  return std::unique_ptr<Embedder>();
}

Result<std::unique_ptr<Reranker>> MakeReranker(const Config& config) {
  if (config.rerank_provider == "chat") {
    // The configured chat model (extract_*), within the rerank timeout: a search waits on it.
    OpenAiChatOptions o;
    o.base_url = config.extract_base_url;
    o.model = config.extract_model;
    o.api_key = config.extract_api_key;
    o.timeout_seconds = static_cast<int>(config.rerank_timeout_seconds);
    o.measured_as_extraction = false;  // ResilientReranker counts it, as a rerank
    PC_ASSIGN_OR_RETURN(auto chat, OpenAiChatExtractor::Create(o));
    return std::unique_ptr<Reranker>(
        std::make_unique<ResilientReranker>(std::make_unique<ChatReranker>(std::move(chat)),
                                            std::chrono::seconds(config.rerank_rest_seconds)));
  }
  if (config.rerank_provider != "openai") return std::unique_ptr<Reranker>();
  HttpRerankerOptions o;
  o.base_url = config.rerank_base_url;
  o.model = config.rerank_model;
  o.api_key = config.rerank_api_key;
  o.timeout_seconds = static_cast<int>(config.rerank_timeout_seconds);
  PC_ASSIGN_OR_RETURN(auto r, HttpReranker::Create(o));
  return std::unique_ptr<Reranker>(std::make_unique<ResilientReranker>(
      std::move(r), std::chrono::seconds(config.rerank_rest_seconds)));
}

Result<std::unique_ptr<Extractor>> MakeExtractor(const Config& config) {
  if (config.extract_provider == "command") {
    CommandExtractorOptions o;
    o.command = config.extract_command;
    o.timeout_seconds = static_cast<int>(config.extract_timeout_seconds);
    return std::unique_ptr<Extractor>(std::make_unique<CommandExtractor>(o));
  }
  if (config.extract_provider != "openai") return std::unique_ptr<Extractor>();
  OpenAiChatOptions o;
  o.base_url = config.extract_base_url;
  o.model = config.extract_model;
  o.api_key = config.extract_api_key;
  o.timeout_seconds = static_cast<int>(config.extract_timeout_seconds);
  PC_ASSIGN_OR_RETURN(auto e, OpenAiChatExtractor::Create(o));
  return std::unique_ptr<Extractor>(std::move(e));
}

}  // namespace pc
