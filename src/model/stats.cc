#include "model/stats.h"

#include <chrono>
#include <cstdio>
#include <map>

namespace pc {

namespace {

void AddCount(std::optional<int64_t>& total, const std::optional<int64_t>& v) {
  if (total && v)
    *total += *v;
  else
    total.reset();
}

constexpr int64_t kAsciiCharsPerToken = 4;  // RFC 0072's initial estimator

}  // namespace

void ModelUsage::AddCall(std::optional<int64_t> input, std::optional<int64_t> output) {
  ++requests;
  AddCount(input_tokens, input);
  AddCount(output_tokens, output);
}

void ModelUsage::Add(const ModelUsage& other) {
  if (other.requests == 0) return;  // an empty bucket is complete: it adds nothing
  requests += other.requests;
  AddCount(input_tokens, other.input_tokens);
  AddCount(output_tokens, other.output_tokens);
}

const char* UsagePurposeName(UsagePurpose p) {
  switch (p) {
    case UsagePurpose::kMemoryExtraction:
      return "memory_extraction";
    case UsagePurpose::kMemoryIndexing:
      return "memory_indexing";
    case UsagePurpose::kMemoryRecall:
      return "memory_recall";
    case UsagePurpose::kHandoffGeneration:
      return "handoff_generation";
  }
  return "memory_extraction";
}

const char* UsageOperationName(UsageOperation o) {
  return o == UsageOperation::kGeneration ? "generation" : "embedding";
}

int64_t EstimateTokens(std::string_view text) {
  int64_t ascii = 0, other = 0;
  for (unsigned char c : text) {
    if (c < 0x80)
      ++ascii;
    else if ((c & 0xC0) != 0x80)
      ++other;  // a lead byte: one code point
  }
  return (ascii + kAsciiCharsPerToken - 1) / kAsciiCharsPerToken + other;
}

void RecallMeasurement::Add(const RecallMeasurement& o) {
  preparations += o.preparations;
  ready_preparations += o.ready_preparations;
  comparable_preparations += o.comparable_preparations;
  baseline_tokens += o.baseline_tokens;
  recalled_tokens += o.recalled_tokens;
}

Result<StatsPeriod> ParseStatsPeriod(std::string_view s) {
  if (s == "today") return StatsPeriod::kToday;
  if (s == "7d") return StatsPeriod::k7d;
  if (s == "30d") return StatsPeriod::k30d;
  return FieldError("period", "period must be today, 7d or 30d");
}

const char* StatsPeriodName(StatsPeriod p) {
  switch (p) {
    case StatsPeriod::kToday:
      return "today";
    case StatsPeriod::k7d:
      return "7d";
    case StatsPeriod::k30d:
      return "30d";
  }
  return "30d";
}

namespace {

std::string FormatDate(std::chrono::sys_days day) {
  const std::chrono::year_month_day ymd(day);
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

std::chrono::sys_days DayOf(int64_t unix_ms) {
  return std::chrono::floor<std::chrono::days>(
      std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(unix_ms)));
}

}  // namespace

std::string UtcDate(int64_t unix_ms) { return FormatDate(DayOf(unix_ms)); }

ResolvedPeriod ResolvePeriod(StatsPeriod preset, int64_t now_unix_ms) {
  const int days = preset == StatsPeriod::kToday ? 1 : preset == StatsPeriod::k7d ? 7 : 30;
  const std::chrono::sys_days today = DayOf(now_unix_ms);
  ResolvedPeriod out{preset, {}};
  for (int i = days - 1; i >= 0; --i) out.dates.push_back(FormatDate(today - std::chrono::days(i)));
  return out;
}

void AggregateUsage(const ResolvedPeriod& period, const std::vector<UsageRow>& rows,
                    ScopedStats& out) {
  std::map<std::string, UsageDay> days;
  for (const std::string& d : period.dates) days[d].date = d;
  std::map<std::string, UsageValues> purposes;
  std::map<std::pair<std::string, std::string>, UsageValues> day_purposes;
  out.usage_totals = {};
  for (const UsageRow& r : rows) {
    auto day = days.find(r.date);
    if (day == days.end()) continue;
    const bool generation = r.operation == UsageOperationName(UsageOperation::kGeneration);
    auto pick = [&](UsageValues& v) -> ModelUsage& {
      return generation ? v.generation : v.embedding;
    };
    pick(out.usage_totals).Add(r.usage);
    pick(day->second.values).Add(r.usage);
    pick(purposes[r.purpose]).Add(r.usage);
    pick(day_purposes[{r.date, r.purpose}]).Add(r.usage);
  }
  for (const auto& [key, values] : day_purposes)
    days[key.first].by_purpose.push_back({key.second, values});
  out.usage_by_purpose.clear();
  for (const auto& [purpose, values] : purposes) out.usage_by_purpose.push_back({purpose, values});
  out.usage_daily.clear();
  for (auto& [date, day] : days) out.usage_daily.push_back(std::move(day));
}

void AggregateRecall(const ResolvedPeriod& period, const std::vector<RecallRow>& rows,
                     ScopedStats& out) {
  std::map<std::string, RecallMeasurement> days;
  for (const std::string& d : period.dates) days[d];
  out.recall_totals = {};
  for (const RecallRow& r : rows) {
    auto day = days.find(r.date);
    if (day == days.end()) continue;
    day->second.Add(r.value);
    out.recall_totals.Add(r.value);
  }
  out.recall_daily.clear();
  for (const auto& [date, value] : days) out.recall_daily.push_back({date, value});
}

}  // namespace pc
