// The composition root's choice of model providers from the configuration.
#pragma once

#include <memory>

#include "app/config.h"
#include "search/embedder.h"

namespace pc {

// The configured embedder, or null for embed_provider = none.
Result<std::unique_ptr<Embedder>> MakeEmbedder(const Config& config);

}  // namespace pc
