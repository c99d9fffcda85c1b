// The composition root's parts, built once from the configuration: the store, the model
// providers and every service. `serve` puts HTTP (and /mcp) in front of them; `mcp --data` puts
// MCP over stdio in front of them.
#pragma once

#include <functional>
#include <memory>

#include "api/services.h"
#include "app/config.h"
#include "client/call_route.h"
#include "extract/extractor.h"
#include "search/embedder.h"
#include "search/reranker.h"
#include "store/store.h"

namespace pc {

struct Runtime {
  std::unique_ptr<Store> store;  // SQLite in the data directory, or PostgreSQL
  std::unique_ptr<Embedder> embedder;
  std::unique_ptr<Reranker> reranker;
  std::unique_ptr<Extractor> extractor;
  std::unique_ptr<MemoryService> memory;
  std::unique_ptr<SearchService> search;
  std::unique_ptr<SourceService> sources;
  std::unique_ptr<FlushService> flush;
  std::unique_ptr<HandoffService> handoff;
  std::unique_ptr<ContextService> context;
  std::unique_ptr<StatsService> stats;
  std::unique_ptr<TokenService> tokens;
  std::unique_ptr<AuditService> audit;
  std::unique_ptr<ReviewService> review;
  std::unique_ptr<DailyReviewService> daily;
  std::unique_ptr<ExperienceGenerator> generate;
  std::unique_ptr<ExternalSkillRegistry> external_skills;
  std::unique_ptr<SkillGenerator> skill_generate;
  std::unique_ptr<ReportServices> report;

  Services services() {
    return Services{*memory,
                    *search,
                    *sources,
                    *flush,
                    *handoff,
                    *context,
                    *stats,
                    *tokens,
                    *audit,
                    *review,
                    daily.get(),
                    generate.get(),
                    external_skills.get(),
                    skill_generate.get(),
                    report.get()};
  }
};

// Opens the store (creating the data directory) and wires everything; an error says what failed.
Result<std::unique_ptr<Runtime>> BuildRuntime(const Config& config);

// Runs a command's `fn` with the API of the configured server, or (`local`) of the data directory
// in this process, as its local administrator. An error opening it is reported (its exit code).
int WithRoutes(const Config& config, bool local, const std::function<int(const CallRoute&)>& fn);

}  // namespace pc
