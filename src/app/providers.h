// The composition root's choice of model providers from the configuration.
#pragma once

#include <memory>

#include "app/config.h"
#include "extract/extractor.h"
#include "search/embedder.h"
#include "search/reranker.h"

namespace pc {

// The configured embedder, or null for embed_provider = none.
Result<std::unique_ptr<Embedder>> MakeEmbedder(const Config& config);
// The configured reranker (behind a circuit breaker), or null for rerank_provider = none.
Result<std::unique_ptr<Reranker>> MakeReranker(const Config& config);
// The configured extractor, or null for extract_provider = none.
Result<std::unique_ptr<Extractor>> MakeExtractor(const Config& config);

}  // namespace pc
