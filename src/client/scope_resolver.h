// The one way a client turns what a person or an agent calls a scope into a scope id: the CLI's
// --scope and MCP's scope_id / scope_key. A key is created only by a write: a read of a key
// nobody wrote to is "not found", never a new empty scope.
#pragma once

#include <string>

#include "client/call_route.h"
#include "common/status.h"

namespace pc {

enum class ScopeUse {
  kRead,   // the key must exist: NotFound otherwise
  kWrite,  // the key is created on first use (idempotent, safe under concurrency)
};

// A scope key (e.g. project:orders-importer) to its scope id.
Result<std::string> ResolveScopeKey(const CallRoute& call, const std::string& key, ScopeUse use);
// A scope id (scp_…) as it is, or a key resolved as ResolveScopeKey does.
Result<std::string> ResolveScope(const CallRoute& call, const std::string& id_or_key, ScopeUse use);

}  // namespace pc
