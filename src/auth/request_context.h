// The request being served on this thread: who asks (the principal), its request id and its
// operation (the route's operation id). The HTTP layer sets it for each request; stdio MCP and
// `--data` commands run as the local administrator (what a thread without one sees), background
// work as the system. Services take each write's actor from it (service/core/actor.h) and hand
// it to the store with the write, so the audit row in the same transaction names the real actor
// (store/audit_trail.h), never a client-supplied string. The store itself never reads it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "auth/principal.h"

namespace pc {

struct RequestContext {
  const Principal* principal = nullptr;  // never null once set
  std::string request_id;
  std::string operation;
};

// The current request; a thread without one gets the local administrator's context.
const RequestContext& CurrentRequest();
inline const Principal& CurrentPrincipal() { return *CurrentRequest().principal; }

// Sets the thread's request for its lifetime, and restores the previous one after.
class ScopedRequest {
 public:
  ScopedRequest(const Principal& principal, std::string request_id, std::string operation = {});
  // The principal is held by reference for the scope's life: a temporary would dangle (a test
  // did that; AddressSanitizer caught it), so it does not compile.
  ScopedRequest(Principal&& principal, std::string request_id, std::string operation = {}) = delete;
  ~ScopedRequest();
  ScopedRequest(const ScopedRequest&) = delete;
  ScopedRequest& operator=(const ScopedRequest&) = delete;
  // The route table names the operation once it has matched the path.
  void set_operation(std::string_view op);

 private:
  RequestContext mine_;
  const RequestContext* previous_;
};

// Names the current request's operation while a route runs (the route table sets it), and
// restores the previous name after: one MCP request may call more than one route. Without a
// current request (stdio MCP, `--data` commands) it makes one for the local administrator.
class OperationScope {
 public:
  explicit OperationScope(std::string_view op);
  ~OperationScope();
  OperationScope(const OperationScope&) = delete;
  OperationScope& operator=(const OperationScope&) = delete;

 private:
  std::string previous_;
  std::optional<ScopedRequest> own_;
};

}  // namespace pc
