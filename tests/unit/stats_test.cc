// Scoped statistics (RFC 0072): the recall estimator, period resolution, aggregation with unknown
// token counts, and the store's daily aggregates and inventory against a real SQLite store.
#include "model/stats.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "service/admin/stats_service.h"
#include "service/core/usage_log.h"
#include "service/memory/memory_service.h"
#include "store/sqlite/sqlite_store.h"
#include "test_util.h"

namespace pc {
namespace {

using testing::Fixture;

TEST(Stats, EstimatorRoundsUpPerText) {
  EXPECT_EQ(EstimateTokens(""), 0);
  EXPECT_EQ(EstimateTokens("a"), 1);
  EXPECT_EQ(EstimateTokens("abcd"), 1);
  EXPECT_EQ(EstimateTokens("abcde"), 2);
  EXPECT_EQ(EstimateTokens("订单"), 2);      // one a non-ASCII character (3 bytes each)
  EXPECT_EQ(EstimateTokens("ab订单cd"), 3);  // 4 ASCII → 1, plus 2
  EXPECT_EQ(EstimateTokens("é😀"), 2);        // 2- and 4-byte characters: one each
  EXPECT_EQ(EstimateTokens(std::string(401, 'x')), 101);
}

TEST(Stats, PeriodsAreInclusiveUtcDates) {
  const int64_t t = 1709164800000 + 3600 * 1000;  // 2024-02-29T01:00Z (a leap day)
  EXPECT_EQ(UtcDate(t), "2024-02-29");
  EXPECT_EQ(UtcDate(1709164800000 - 1), "2024-02-28");  // a millisecond before midnight UTC
  ResolvedPeriod today = ResolvePeriod(StatsPeriod::kToday, t);
  EXPECT_EQ(today.dates, std::vector<std::string>{"2024-02-29"});
  ResolvedPeriod week = ResolvePeriod(StatsPeriod::k7d, t);
  ASSERT_EQ(week.dates.size(), 7u);
  EXPECT_EQ(week.start(), "2024-02-23");
  EXPECT_EQ(week.end(), "2024-02-29");
  ResolvedPeriod month = ResolvePeriod(StatsPeriod::k30d, 1704067200000);  // 2024-01-01T00:00Z
  ASSERT_EQ(month.dates.size(), 30u);
  EXPECT_EQ(month.start(), "2023-12-03");
  EXPECT_EQ(month.end(), "2024-01-01");
  for (size_t i = 1; i < month.dates.size(); ++i) EXPECT_LT(month.dates[i - 1], month.dates[i]);
  EXPECT_EQ(*ParseStatsPeriod("7d"), StatsPeriod::k7d);
  for (const char* bad : {"", "1y", "7D", "today "})
    EXPECT_EQ(ParseStatsPeriod(bad).status().code(), Code::kInvalidArgument) << bad;
}

ModelUsage U(int64_t requests, std::optional<int64_t> in, std::optional<int64_t> out) {
  ModelUsage u;
  u.requests = requests;
  u.input_tokens = in;
  u.output_tokens = out;
  return u;
}

void ExpectUsage(const ModelUsage& u, int64_t requests, std::optional<int64_t> in,
                 std::optional<int64_t> out) {
  EXPECT_EQ(u.requests, requests);
  EXPECT_EQ(u.input_tokens, in);
  EXPECT_EQ(u.output_tokens, out);
}

TEST(Stats, AggregationPropagatesUnknownCountsOnlyFromNonEmptyBuckets) {
  ModelUsage calls;
  calls.AddCall(10, 2);
  calls.AddCall(5, std::nullopt);
  ExpectUsage(calls, 2, 15, std::nullopt);
  ModelUsage empty_added = U(1, 3, 4);
  empty_added.Add(ModelUsage{});  // an empty bucket changes nothing
  ExpectUsage(empty_added, 1, 3, 4);

  const ResolvedPeriod p = ResolvePeriod(StatsPeriod::k7d, 1709164800000);  // ends 2024-02-29
  std::vector<UsageRow> rows = {
      {"2024-02-20", "memory_extraction", "generation", U(9, 9, 9)},  // before the period: ignored
      {"2024-02-24", "memory_extraction", "generation", U(1, 100, 20)},
      {"2024-02-29", "memory_extraction", "generation", U(2, 50, std::nullopt)},
      {"2024-02-29", "handoff_generation", "generation", U(1, 30, 5)},
      {"2024-02-29", "memory_recall", "embedding", U(3, 21, std::nullopt)},
  };
  ScopedStats s;
  AggregateUsage(p, rows, s);
  ExpectUsage(s.usage_totals.generation, 4, 180, std::nullopt);
  ExpectUsage(s.usage_totals.embedding, 3, 21, std::nullopt);
  ASSERT_EQ(s.usage_by_purpose.size(), 3u);
  EXPECT_EQ(s.usage_by_purpose[0].purpose, "handoff_generation");
  ExpectUsage(s.usage_by_purpose[0].values.generation, 1, 30, 5);
  EXPECT_EQ(s.usage_by_purpose[1].purpose, "memory_extraction");
  ExpectUsage(s.usage_by_purpose[1].values.generation, 3, 150, std::nullopt);
  ExpectUsage(s.usage_by_purpose[1].values.embedding, 0, 0, 0);
  ASSERT_EQ(s.usage_daily.size(), 7u);
  EXPECT_EQ(s.usage_daily[0].date, "2024-02-23");
  ExpectUsage(s.usage_daily[0].values.generation, 0, 0, 0);
  EXPECT_TRUE(s.usage_daily[0].by_purpose.empty());
  ExpectUsage(s.usage_daily[1].values.generation, 1, 100, 20);  // a complete day stays known
  ExpectUsage(s.usage_daily[6].values.generation, 3, 80, std::nullopt);
  EXPECT_EQ(s.usage_daily[6].by_purpose.size(), 3u);

  AggregateRecall(p, {{"2024-02-24", {1, 1, 1, 100, 40}}, {"2024-02-29", {2, 1, 0, 0, 0}}}, s);
  EXPECT_EQ(s.recall_totals.preparations, 3);
  EXPECT_EQ(s.recall_totals.baseline_tokens, 100);
  ASSERT_EQ(s.recall_daily.size(), 7u);
  EXPECT_EQ(s.recall_daily[6].value.preparations, 2);
  EXPECT_EQ(s.recall_daily[0].value.preparations, 0);
}

TEST(Stats, StoreAggregatesAndInventory) {
  Fixture f;
  StatsService stats(*f.store);
  const int64_t now = NowMillis();
  // Nothing recorded for a scope that does not exist, and reading creates nothing.
  RecordUsage(*f.store, "project:nobody", UsagePurpose::kMemoryRecall, UsageOperation::kEmbedding,
              U(1, 1, 1));
  auto none = stats.Get("project:nobody", StatsPeriod::kToday, now);
  PC_ASSERT_OK(none);
  EXPECT_EQ(none->usage_totals.embedding.requests, 0);
  EXPECT_EQ(none->inventory.entries_by_kind.size(), 0u);
  EXPECT_FALSE(f.memory->GetScopeByKey("project:nobody").ok());

  PC_ASSERT_OK(f.memory->Remember({"project:s", "fact", "one", "", "", std::nullopt}));
  auto two = f.memory->Remember({"project:s", "decision", "two", "", "", std::nullopt});
  PC_ASSERT_OK(two);
  PC_ASSERT_OK(f.memory->Retire({"project:s", *two->citation, "gone", ""}));
  RecordUsage(*f.store, "project:s", UsagePurpose::kMemoryExtraction, UsageOperation::kGeneration,
              U(1, 10, 2));
  RecordUsage(*f.store, "project:s", UsagePurpose::kMemoryExtraction, UsageOperation::kGeneration,
              U(1, 5, std::nullopt));
  RecordUsage(*f.store, "project:s", UsagePurpose::kMemoryExtraction, UsageOperation::kGeneration,
              U(1, 1, 1));
  RecordStatistics(*f.store, "project:s", {}, RecallMeasurement{1, 1, 1, 50, 20});
  RecordStatistics(*f.store, "project:s", {}, RecallMeasurement{1, 0, 0, 0, 0});
  auto got = stats.Get("project:s", StatsPeriod::kToday, now);
  PC_ASSERT_OK(got);
  ExpectUsage(got->usage_totals.generation, 3, 16,
              std::nullopt);  // the incomplete day stays unknown
  EXPECT_EQ(got->recall_totals.preparations, 2);
  EXPECT_EQ(got->recall_totals.baseline_tokens, 50);
  EXPECT_EQ(got->recall_totals.recalled_tokens, 20);
  ASSERT_EQ(got->inventory.entries_by_kind.size(), 2u);
  EXPECT_EQ(got->inventory.entries_by_kind[0].name, "decision");
  EXPECT_EQ(got->inventory.entries_by_kind[0].active, 0);
  EXPECT_EQ(got->inventory.entries_by_kind[0].inactive, 1);
  EXPECT_EQ(got->inventory.entries_by_kind[1].name, "fact");
  EXPECT_EQ(got->inventory.entries_by_kind[1].active, 1);
  ASSERT_EQ(got->inventory.artifacts_by_family.size(), 1u);
  EXPECT_EQ(got->inventory.artifacts_by_family[0].name, "memory");
  // Invalid scope ids are refused before any read.
  EXPECT_EQ(stats.Get(" ", StatsPeriod::kToday, now).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(stats.Get(std::string(257, 'x'), StatsPeriod::kToday, now).status().code(),
            Code::kInvalidArgument);
}

}  // namespace
}  // namespace pc
