// POST /v1/context/prepare (DESIGN §5, invariant 11): coarse recall (memory search, the source
// log as Experience, the latest handoff), then the builder (context/builder.h) packs a cited,
// byte-budgeted block marked as untrusted history. It never writes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "context/builder.h"
#include "model/types.h"
#include "service/search/search_service.h"
#include "store/store.h"

namespace pc {

struct PrepareRequest {
  std::string scope_id;
  std::string query;
  int64_t max_bytes = 0;  // 1 … kMaxContextBytes
  SearchMode mode = SearchMode::kAuto;
  bool include_handoff = true;
  std::optional<int64_t> min_revision;  // read-your-writes (validation.h CheckMinRevision)
  // Rerank the memory candidates (SearchRequest::rerank) before they are packed: never unless
  // asked.
  bool rerank = false;
  // scope_id as the router parsed it, held by the caller for the call; null: the service parses it.
  const ScopeRef* scope = nullptr;
};

struct PreparedContext {
  bool ready = false;   // false: "empty" (nothing fitted, or nothing found)
  std::string content;  // empty when not ready
  std::vector<ContextItem> items;
  MemoryRef memory;  // the memory revision the memory items cite
  SearchMode mode_used = SearchMode::kFts;
};

class ContextService {
 public:
  ContextService(Store& store, SearchService& search) : store_(store), search_(search) {}
  Result<PreparedContext> Prepare(const PrepareRequest& req);

 private:
  Store& store_;
  SearchService& search_;
};

}  // namespace pc
