// Who the request being served is, as a write names them (store/audit_trail.h's Actor): the
// principal the HTTP layer authenticated, stdio MCP's and `--data` commands' local
// administrator, or the system for background work (auth/request_context.h). Services take it
// here, once per write, and hand it to the store with the write.
#pragma once

#include "store/audit_trail.h"

namespace pc {

Actor RequestActor();

}  // namespace pc
