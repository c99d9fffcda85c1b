// The use cases the HTTP API serves, handed to the server and its routes together.
#pragma once

#include "service/admin/audit_service.h"
#include "service/admin/stats_service.h"
#include "service/admin/token_service.h"
#include "service/context/context_service.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_service.h"
#include "service/memory/memory_service.h"
#include "service/report/report_services.h"
#include "service/review/daily_review.h"
#include "service/review/experience_generator.h"
#include "service/review/review_service.h"
#include "service/search/search_service.h"
#include "service/skills/external_skills.h"
#include "service/skills/skill_generator.h"

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
  // null, or no roots configured: /v1/external-skills/* is external_skill_registry_unavailable
  ExternalSkillRegistry* external_skills = nullptr;
  // null: /v1/skill/generate and /v1/external-skills/import are generation_unavailable
  SkillGenerator* skill_generate = nullptr;
  // null: /v1/handoff-reports/* is capability_unavailable (a router built for a test)
  ReportServices* report = nullptr;
};

}  // namespace pc
