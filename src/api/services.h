// The use cases the HTTP API serves, handed to the server and its routes together.
#pragma once

#include "service/audit_service.h"
#include "service/context_service.h"
#include "service/daily_review.h"
#include "service/experience_generator.h"
#include "service/flush_service.h"
#include "service/handoff_service.h"
#include "service/memory_service.h"
#include "service/review_service.h"
#include "service/search_service.h"
#include "service/source_service.h"
#include "service/stats_service.h"
#include "service/token_service.h"

namespace pc {

struct Services {
  MemoryService& memory;
  SearchService& search;
  SourceService& sources;
  FlushService& flush;
  HandoffService& handoff;
  ContextService& context;
  StatsService& stats;
  TokenService& tokens;
  AuditService& audit;
  ReviewService& review;
  DailyReviewService* daily = nullptr;  // null: POST /v1/review/run is capability_unavailable
  ExperienceGenerator* generate =
      nullptr;  // null: POST /v1/experience/generate is capability_unavailable
};

}  // namespace pc
