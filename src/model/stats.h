// Scoped statistics (RFC 0072): provider-reported model usage, the recall token estimate, the
// resolved UTC period, and the plain structs of one statistics answer. Pure: no store, no clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/review.h"

namespace pc {

// What a provider reported for the calls of one capability result. A token count is nullopt when
// the provider did not report it for some call: the sum is then unknown, never a guess.
struct ModelUsage {
  int64_t requests = 0;
  std::optional<int64_t> input_tokens = 0;
  std::optional<int64_t> output_tokens = 0;

  // Adds one answered call; a missing count makes the total unknown.
  void AddCall(std::optional<int64_t> input, std::optional<int64_t> output);
  // Adds another total (null propagates).
  void Add(const ModelUsage& other);
  bool empty() const { return requests == 0; }
};

// Why a model was asked (the spec's purposes that this server has), and how.
enum class UsagePurpose { kMemoryExtraction, kMemoryIndexing, kMemoryRecall, kHandoffGeneration };
enum class UsageOperation { kGeneration, kEmbedding };
const char* UsagePurposeName(UsagePurpose p);
const char* UsageOperationName(UsageOperation o);

// The recall estimator of RFC 0072: one token per 4 ASCII characters (bytes < 0x80) plus one per
// non-ASCII character (code point), rounded up per complete text. Deterministic, no model.
inline constexpr const char* kRecallEstimatorId = "powercontext.chars.v1";
inline constexpr const char* kRecallEstimatorVersion = "1";
int64_t EstimateTokens(std::string_view text);

// One prepare_context, measured after selection and truncation.
struct RecallMeasurement {
  int64_t preparations = 0, ready_preparations = 0, comparable_preparations = 0;
  int64_t baseline_tokens = 0, recalled_tokens = 0;
  void Add(const RecallMeasurement& o);
};

// A period preset resolved to inclusive UTC dates ("YYYY-MM-DD"), oldest first.
enum class StatsPeriod { kToday, k7d, k30d };
Result<StatsPeriod> ParseStatsPeriod(std::string_view s);  // InvalidArgument for anything else
const char* StatsPeriodName(StatsPeriod p);
struct ResolvedPeriod {
  StatsPeriod preset = StatsPeriod::k30d;
  std::vector<std::string> dates;  // every date in the period, ascending; 1, 7 or 30 of them
  const std::string& start() const { return dates.front(); }
  const std::string& end() const { return dates.back(); }
};
ResolvedPeriod ResolvePeriod(StatsPeriod preset, int64_t now_unix_ms);
// The UTC date of a time, "YYYY-MM-DD".
std::string UtcDate(int64_t unix_ms);

// One stored daily bucket of model usage.
struct UsageRow {
  std::string date;
  std::string purpose;
  std::string operation;
  ModelUsage usage;
};
// One stored daily bucket of recall measurements (for the current estimator).
struct RecallRow {
  std::string date;
  RecallMeasurement value;
};

// The current inventory of a scope (zeros for a scope nobody wrote to).
struct Inventory {
  int64_t sources_total = 0, memory_processed = 0;
  struct Count {
    std::string name;                  // family or kind
    int64_t active = 0, inactive = 0;  // artifacts: `active` is the total
  };
  std::vector<Count> artifacts_by_family;  // by UTF-8 byte order
  std::vector<Count> entries_by_kind;      // by UTF-8 byte order
  std::vector<CandidateCount> candidates;  // by family, then status
};

struct UsageValues {
  ModelUsage generation, embedding;
};
struct PurposeUsage {
  std::string purpose;
  UsageValues values;
};
struct UsageDay {
  std::string date;
  UsageValues values;
  std::vector<PurposeUsage> by_purpose;  // purposes with a stored bucket that day, by name
};
struct RecallDay {
  std::string date;
  RecallMeasurement value;
};

struct ScopedStats {
  std::string scope_id;  // as the caller named it
  int64_t as_of_ms = 0;
  Inventory inventory;
  ResolvedPeriod period;
  UsageValues usage_totals;
  std::vector<PurposeUsage> usage_by_purpose;  // by name
  std::vector<UsageDay> usage_daily;           // every date of the period
  RecallMeasurement recall_totals;
  std::vector<RecallDay> recall_daily;  // every date of the period
};

// Folds stored rows into the period's totals, breakdowns and zero-filled days. Rows outside the
// period are ignored.
void AggregateUsage(const ResolvedPeriod& period, const std::vector<UsageRow>& rows,
                    ScopedStats& out);
void AggregateRecall(const ResolvedPeriod& period, const std::vector<RecallRow>& rows,
                     ScopedStats& out);

}  // namespace pc
