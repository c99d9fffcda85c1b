// GET /v1/stats (RFC 0072; the spec's ScopedStats, every object strict): inventory, model usage
// and recall tokens of one scope. Answered with Cache-Control: no-store.
#include <map>
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "common/clock.h"

namespace pc {
namespace {

Json OptionalCount(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

Json UsageJson(const ModelUsage& u) {
  return Json{{"requests", u.requests},
              {"input_tokens", OptionalCount(u.input_tokens)},
              {"output_tokens", OptionalCount(u.output_tokens)}};
}

Json PurposesJson(const std::vector<PurposeUsage>& rows) {
  Json out = Json::array();
  for (const PurposeUsage& p : rows)
    out.push_back({{"purpose", p.purpose},
                   {"generation", UsageJson(p.values.generation)},
                   {"embedding", UsageJson(p.values.embedding)}});
  return out;
}

Json RecallJson(const RecallMeasurement& m) {
  return Json{
      {"preparations", m.preparations},
      {"ready_preparations", m.ready_preparations},
      {"comparable_preparations", m.comparable_preparations},
      {"baseline_tokens", m.baseline_tokens},
      {"recalled_tokens", m.recalled_tokens},
      {"token_reduction", m.baseline_tokens - m.recalled_tokens}};  // signed: overhead shows
}

// The spec's CandidateInventoryStatistics: totals, and per family (in byte order).
Json CandidatesJson(const std::vector<CandidateCount>& counts) {
  struct Tally {
    int64_t pending = 0, approved = 0, rejected = 0;
    int64_t total() const { return pending + approved + rejected; }
    void Add(CandidateStatus s, int64_t n) {
      (s == CandidateStatus::kPending    ? pending
       : s == CandidateStatus::kApproved ? approved
                                         : rejected) += n;
    }
  };
  Tally all;
  std::map<std::string, Tally> by_family;
  for (const CandidateCount& c : counts) {
    if (c.family == kMemoryCandidateFamily) continue;  // ours, outside the spec's families
    all.Add(c.status, c.count);
    by_family[c.family].Add(c.status, c.count);
  }
  Json families = Json::array();
  for (const auto& [family, t] : by_family)
    families.push_back({{"family", family},
                        {"total", t.total()},
                        {"pending", t.pending},
                        {"approved", t.approved},
                        {"rejected", t.rejected}});
  return Json{{"total", all.total()},
              {"pending", all.pending},
              {"approved", all.approved},
              {"rejected", all.rejected},
              {"by_family", families}};
}

Json InventoryJson(const Inventory& inv) {
  Json families = Json::array();
  int64_t artifacts = 0;
  for (const Inventory::Count& f : inv.artifacts_by_family) {
    families.push_back({{"family", f.name}, {"total", f.active}});
    artifacts += f.active;
  }
  Json kinds = Json::array();
  int64_t active = 0, inactive = 0;
  for (const Inventory::Count& k : inv.entries_by_kind) {
    kinds.push_back({{"kind", k.name},
                     {"total", k.active + k.inactive},
                     {"active", k.active},
                     {"inactive", k.inactive}});
    active += k.active;
    inactive += k.inactive;
  }
  return Json{
      {"sources",
       {{"total", inv.sources_total},
        {"memory_processed", inv.memory_processed},
        {"memory_pending", std::max<int64_t>(0, inv.sources_total - inv.memory_processed)}}},
      {"artifacts", {{"total", artifacts}, {"by_family", families}}},
      {"candidates", CandidatesJson(inv.candidates)},
      {"memory",
       {{"entries",
         {{"total", active + inactive},
          {"active", active},
          {"inactive", inactive},
          {"by_kind", kinds}}}}}};
}

Json PeriodJson(const ResolvedPeriod& p) {
  return Json{{"preset", StatsPeriodName(p.preset)},
              {"start_date", p.start()},
              {"end_date", p.end()},
              {"timezone", "UTC"}};
}

}  // namespace

Json StatsJson(const ScopedStats& s) {
  Json usage_daily = Json::array();
  for (const UsageDay& d : s.usage_daily)
    usage_daily.push_back({{"date", d.date},
                           {"generation", UsageJson(d.values.generation)},
                           {"embedding", UsageJson(d.values.embedding)},
                           {"by_purpose", PurposesJson(d.by_purpose)}});
  Json recall_daily = Json::array();
  for (const RecallDay& d : s.recall_daily) {
    Json day = RecallJson(d.value);
    day["date"] = d.date;
    recall_daily.push_back(std::move(day));
  }
  return Json{
      {"scope_id", s.scope_id},
      {"as_of", FormatTimestamp(s.as_of_ms)},
      {"inventory", InventoryJson(s.inventory)},
      {"usage",
       {{"period", PeriodJson(s.period)},
        {"totals",
         {{"generation", UsageJson(s.usage_totals.generation)},
          {"embedding", UsageJson(s.usage_totals.embedding)}}},
        {"by_purpose", PurposesJson(s.usage_by_purpose)},
        {"daily", usage_daily}}},
      {"recall",
       {{"period", PeriodJson(s.period)},
        {"estimator", {{"estimator_id", kRecallEstimatorId}, {"version", kRecallEstimatorVersion}}},
        {"totals", RecallJson(s.recall_totals)},
        {"daily", recall_daily}}}};
}

void AddStatsRoutes(Router& router, Services services) {
  auto shared = std::make_shared<Services>(services);
  router.Add(
      "GET", "/v1/stats", {"get_stats", Permission::kRead, ScopeIn::kQuery},
      [shared](const ApiRequest& req) -> Result<ApiResponse> {
        PC_ASSIGN_OR_RETURN(Query q, Query::From(req.query, {"scope_id", "period", "sessions"}));
        PC_ASSIGN_OR_RETURN(std::string scope_id, q.String("scope_id"));
        StatsPeriod period = StatsPeriod::k30d;
        if (auto p = q.OptString("period")) {
          PC_ASSIGN_OR_RETURN(period, ParseStatsPeriod(*p));
        }
        PC_ASSIGN_OR_RETURN(bool sessions, q.Bool("sessions", false));
        const int64_t now = NowMillis();
        PC_ASSIGN_OR_RETURN(ScopedStats stats, shared->stats.Get(scope_id, period, now));
        ApiResponse out{200, StatsJson(stats)};
        if (sessions) {  // ours, on request: the spec's answer is exactly RFC 0072's otherwise
          PC_ASSIGN_OR_RETURN(SessionStats s, shared->stats.Sessions(scope_id, period, now));
          out.body["sessions"] = SessionStatsJson(s);
        }
        out.headers.emplace_back("Cache-Control",
                                 "no-store");  // scoped statistics are never cached
        return out;
      });
}

}  // namespace pc
