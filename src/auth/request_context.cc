#include "auth/request_context.h"

namespace pc {
namespace {

const RequestContext& LocalContext() {
  static const RequestContext kLocal{&LocalAdministrator(), "", ""};
  return kLocal;
}

thread_local RequestContext* current = nullptr;

}  // namespace

const RequestContext& CurrentRequest() { return current ? *current : LocalContext(); }

ScopedRequest::ScopedRequest(const Principal& principal, std::string request_id,
                             std::string operation)
    : mine_{&principal, std::move(request_id), std::move(operation)}, previous_(current) {
  current = &mine_;
}

ScopedRequest::~ScopedRequest() { current = const_cast<RequestContext*>(previous_); }

void ScopedRequest::set_operation(std::string_view op) { mine_.operation = op; }

OperationScope::OperationScope(std::string_view op) {
  if (!current) {
    own_.emplace(LocalAdministrator(), "", std::string(op));
    return;
  }
  previous_ = std::move(current->operation);
  current->operation = op;
}

OperationScope::~OperationScope() {
  if (!own_ && current) current->operation = std::move(previous_);
}

}  // namespace pc
