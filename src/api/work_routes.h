// The work-continuity routes (RFC 1223, docs/work-continuity.md): /v1/work/contracts/create,
// /v1/work/handoffs/prepare-current, /v1/work/handoffs/acknowledge, /v1/work/outcomes/record.
#pragma once

#include "api/router.h"

namespace pc {

void AddWorkRoutes(Router& router, Services services);

}  // namespace pc
