#include "app/runtime.h"

#include <filesystem>

#include "api/router.h"
#include "app/providers.h"
#include "cli/commands.h"
#include "mcp/transports.h"
#include "store/postgres/pg_store.h"
#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/store_files.h"

namespace pc {

Result<std::unique_ptr<Runtime>> BuildRuntime(const Config& config) {
  auto rt = std::make_unique<Runtime>();
  if (config.store == "sqlite") {
    sqlite::SqliteOptions store_options;
    store_options.data_dir = config.data_dir;
    store_options.durability =
        config.durability == "normal" ? sqlite::Durability::kNormal : sqlite::Durability::kFull;
    PC_ASSIGN_OR_RETURN(rt->store, sqlite::SqliteStore::Open(store_options));
  } else {
    // The data directory still holds this server's caches (saved vector graphs).
    std::error_code ec;
    std::filesystem::create_directories(config.data_dir, ec);
    if (ec)
      return Internal("cannot create data directory " + config.data_dir + ": " + ec.message());
    pg::PgOptions store_options;
    store_options.url = config.store;
    store_options.relaxed_commit = config.durability == "normal";
    PC_ASSIGN_OR_RETURN(rt->store, pg::PgStore::Open(store_options));
  }
  PC_ASSIGN_OR_RETURN(rt->embedder, MakeEmbedder(config));
  PC_ASSIGN_OR_RETURN(rt->reranker, MakeReranker(config));
  PC_ASSIGN_OR_RETURN(rt->extractor, MakeExtractor(config));
  ServiceLimits limits;
  limits.max_entry_bytes = static_cast<size_t>(config.max_entry_bytes);
  PC_ASSIGN_OR_RETURN(
      limits.policy,
      ApplySettings(WritePolicy{}, {{kSettingReconcile, config.reconcile},
                                    {kSettingExtractionReview, config.extraction_review},
                                    {kSettingRequireEvidence, config.require_evidence},
                                    {kSettingExpiry, config.expiry}}));
  rt->memory = std::make_unique<MemoryService>(*rt->store, limits, rt->embedder.get());
  VectorCacheOptions vector_options;
  vector_options.ann_dir = (std::filesystem::path(config.data_dir) / sqlite::kAnnDirName).string();
  rt->search = std::make_unique<SearchService>(*rt->store, rt->embedder.get(), rt->reranker.get(),
                                               vector_options);
  rt->sources =
      std::make_unique<SourceService>(*rt->store, static_cast<size_t>(config.max_source_bytes));
  FlushOptions flush_options;
  flush_options.source_window_limit = static_cast<int>(config.source_window_limit);
  flush_options.max_entry_bytes = limits.max_entry_bytes;
  flush_options.policy = limits.policy;
  rt->flush = std::make_unique<FlushService>(*rt->store, rt->extractor.get(), rt->embedder.get(),
                                             flush_options);
  rt->handoff = std::make_unique<HandoffService>(*rt->store, rt->extractor.get());
  rt->review = std::make_unique<ReviewService>(*rt->store, limits);
  rt->daily = std::make_unique<DailyReviewService>(*rt->store, rt->extractor.get(), *rt->handoff);
  rt->generate =
      std::make_unique<ExperienceGenerator>(*rt->store, rt->extractor.get(), *rt->review);
  rt->context = std::make_unique<ContextService>(*rt->store, *rt->search);
  rt->stats = std::make_unique<StatsService>(*rt->store);
  rt->tokens = std::make_unique<TokenService>(*rt->store, config.auth_token);
  rt->audit = std::make_unique<AuditService>(*rt->store);
  PC_ASSIGN_OR_RETURN(std::vector<ExternalSkillRoot> roots,
                      ParseExternalSkillRoots(config.external_skill_roots));
  rt->external_skills =
      std::make_unique<ExternalSkillRegistry>(*rt->store, std::move(roots), LocalHostId());
  rt->report = std::make_unique<ReportServices>(*rt->store);
  rt->skill_generate = std::make_unique<SkillGenerator>(*rt->store, rt->extractor.get(),
                                                        *rt->review, rt->external_skills.get());
  return rt;
}

int WithRoutes(const Config& config, bool local, const std::function<int(const CallRoute&)>& fn) {
  if (!local) return fn(RemoteRoutes(config.server));
  auto built = BuildRuntime(config);
  if (!built.ok()) return ReportError(built.status());
  Router router;
  AddRoutes(router, (*built)->services());
  return fn(InProcessRoutes(router));
}

}  // namespace pc
