// Every use case over a test fixture's store, without model providers, and the /v1 route table
// over them: what the server's runtime wires, for tests that call routes in process.
#pragma once

#include "api/router.h"
#include "service/admin/audit_service.h"
#include "service/admin/stats_service.h"
#include "service/admin/token_service.h"
#include "service/context/context_service.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_service.h"
#include "service/review/review_service.h"
#include "service/search/search_service.h"
#include "test_util.h"

namespace pc::testing {

struct RoutedServices {
  explicit RoutedServices(Fixture& f)
      : search(*f.store),
        sources(*f.store),
        flush(*f.store, nullptr, nullptr),
        handoff(*f.store, nullptr),
        context(*f.store, search),
        stats(*f.store),
        tokens(*f.store),
        audit(*f.store),
        review(*f.store) {
    AddRoutes(router, Services{*f.memory, search, sources, flush, handoff, context, stats, tokens,
                               audit, review});
  }

  SearchService search;
  SourceService sources;
  FlushService flush;
  HandoffService handoff;
  ContextService context;
  StatsService stats;
  TokenService tokens;
  AuditService audit;
  ReviewService review;
  Router router;
};

}  // namespace pc::testing
