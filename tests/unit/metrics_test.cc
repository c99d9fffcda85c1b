// The Prometheus registry (ops/metrics.h): the text exposition format, bounded labels, and the
// layers that record into the process's registry (store commits, search, flush, providers,
// vector indexes).
#include "ops/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "providers/command_extractor.h"
#include "providers/resilient.h"
#include "search/hash_embedder.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "service/search/search_service.h"
#include "test_util.h"

namespace pc {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The value of one series (`name` or `name{labels}`, exactly as rendered); NaN when absent.
double Value(const std::string& text, const std::string& series) {
  for (const std::string& line : Lines(text))
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ')
      return std::stod(line.substr(series.size() + 1));
  return NAN;
}

double Global(const std::string& series) { return Value(ops::RenderPrometheus(), series); }

// Checks the whole exposition: every line a comment or a sample of the family last declared
// (HELP, then TYPE), names prefixed powercontext_, label values quoted and escaped, values
// numbers; each histogram series' buckets cumulative in `le`, +Inf equal to _count.
void ExpectWellFormed(const std::string& text) {
  static const std::regex kSample(
      R"re(^(powercontext_[a-z_]+)(?:\{((?:[a-z_]+="(?:\\[\\"n]|[^"\\\n])*")(?:,[a-z_]+="(?:\\[\\"n]|[^"\\\n])*")*)\})? (\S+)$)re");
  static const std::regex kHelp(R"re(^# HELP (powercontext_[a-z_]+) \S.*$)re");
  static const std::regex kType(R"re(^# TYPE (powercontext_[a-z_]+) (counter|gauge|histogram)$)re");
  ASSERT_FALSE(text.empty());
  ASSERT_EQ(text.back(), '\n');
  std::string family, type, helped;
  std::set<std::string> families;
  std::map<std::string, std::vector<std::pair<double, double>>> buckets;  // series → (le, value)
  std::map<std::string, double> counts;
  for (const std::string& line : Lines(text)) {
    std::smatch m;
    if (std::regex_match(line, m, kHelp)) {
      helped = m[1];
      continue;
    }
    if (std::regex_match(line, m, kType)) {
      ASSERT_EQ(m[1], helped) << "TYPE without its HELP: " << line;
      family = m[1];
      type = m[2];
      EXPECT_TRUE(families.insert(family).second) << "family declared twice: " << family;
      continue;
    }
    ASSERT_TRUE(std::regex_match(line, m, kSample)) << "not a sample line: " << line;
    const std::string name = m[1], labels = m[2], value = m[3];
    double v = 0;
    if (value == "+Inf") {
      v = INFINITY;
    } else {
      ASSERT_NO_THROW(v = std::stod(value)) << line;
    }
    if (type != "histogram") {
      EXPECT_EQ(name, family) << line;
      if (type == "counter") {
        EXPECT_GE(v, 0) << line;
      }
      continue;
    }
    if (name == family + "_bucket") {
      static const std::regex kLe(R"re(^(.*?),?le="([^"]+)"$)re");
      std::smatch le;
      ASSERT_TRUE(std::regex_match(labels, le, kLe)) << "le must be the last label: " << line;
      const std::string bound = le[2];
      buckets[family + "{" + std::string(le[1]) + "}"].push_back(
          {bound == "+Inf" ? INFINITY : std::stod(bound), v});
    } else if (name == family + "_count") {
      counts[family + "{" + labels + "}"] = v;
    } else {
      EXPECT_EQ(name, family + "_sum") << line;
    }
  }
  EXPECT_FALSE(buckets.empty());
  for (const auto& [series, b] : buckets) {
    for (size_t i = 1; i < b.size(); ++i) {
      EXPECT_LT(b[i - 1].first, b[i].first) << series << ": bounds must ascend";
      EXPECT_LE(b[i - 1].second, b[i].second) << series << ": buckets must be cumulative";
    }
    ASSERT_TRUE(std::isinf(b.back().first)) << series << " has no +Inf bucket";
    ASSERT_TRUE(counts.count(series)) << series << " has no _count";
    EXPECT_EQ(b.back().second, counts[series]) << series << ": +Inf must equal _count";
  }
  EXPECT_EQ(buckets.size(), counts.size());
}

TEST(MetricsTest, RendersTheTextExpositionFormat) {
  ops::Metrics m;
  m.DeclareHttpOperation("get_memory");
  m.ObserveHttpRequest("search_memory", 200, 0.004);
  m.ObserveHttpRequest("search_memory", 503, 1.5);
  m.HttpConnectionOpened();
  m.ObserveCommitGroup(3);
  m.ObserveCommitSeconds(0.002);
  m.ObserveSearch(ops::SearchModeLabel::kHybrid, 0.01);
  m.ObserveProviderCall(ops::Provider::kExtract, Code::kOk, 2);
  m.CountFlush(ops::FlushResult::kIdle);
  const std::string text = m.Render();
  ExpectWellFormed(text);
  for (const char* family :
       {"powercontext_http_requests_total", "powercontext_http_request_duration_seconds",
        "powercontext_http_open_connections", "powercontext_commit_group_size",
        "powercontext_commit_seconds", "powercontext_commit_reruns_total",
        "powercontext_search_duration_seconds", "powercontext_provider_calls_total",
        "powercontext_provider_duration_seconds", "powercontext_flush_total",
        "powercontext_vector_indexes_loaded", "powercontext_vectors_loaded"})
    EXPECT_NE(text.find(std::string("# TYPE ") + family + " "), std::string::npos) << family;
  EXPECT_NE(text.find("# TYPE powercontext_commit_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE powercontext_http_requests_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE powercontext_http_open_connections gauge\n"), std::string::npos);
  // A declared operation is rendered at zero before its first request.
  EXPECT_EQ(
      Value(text, R"(powercontext_http_requests_total{operation="get_memory",status_class="2xx"})"),
      0);
  EXPECT_EQ(
      Value(text, R"(powercontext_http_request_duration_seconds_count{operation="get_memory"})"),
      0);
  EXPECT_EQ(
      Value(
          text,
          R"(powercontext_http_request_duration_seconds_bucket{operation="search_memory",le="0.005"})"),
      1);
  EXPECT_EQ(
      Value(
          text,
          R"(powercontext_http_request_duration_seconds_bucket{operation="search_memory",le="+Inf"})"),
      2);
  EXPECT_DOUBLE_EQ(
      Value(text, R"(powercontext_http_request_duration_seconds_sum{operation="search_memory"})"),
      1.504);
  EXPECT_EQ(Value(text, "powercontext_commit_group_size_bucket{le=\"2\"}"), 0);
  EXPECT_EQ(Value(text, "powercontext_commit_group_size_bucket{le=\"4\"}"), 1);
  EXPECT_EQ(Value(text, "powercontext_commit_group_size_sum"), 3);
  EXPECT_EQ(Value(text, R"(powercontext_search_duration_seconds_count{mode="hybrid"})"), 1);
  EXPECT_EQ(Value(text, R"(powercontext_search_duration_seconds_count{mode="fts"})"), 0);
  EXPECT_EQ(Value(text, R"(powercontext_flush_total{outcome="idle"})"), 1);
  EXPECT_EQ(Value(text, R"(powercontext_flush_total{outcome="processed"})"), 0);
  EXPECT_EQ(text.find("operation=\"other\""), std::string::npos) << "no overflow yet";
}

TEST(MetricsTest, CountersCountByOperationAndStatusClass) {
  ops::Metrics m;
  m.ObserveHttpRequest("remember_memory", 200, 0.001);
  m.ObserveHttpRequest("remember_memory", 201, 0.001);
  m.ObserveHttpRequest("remember_memory", 409, 0.001);
  m.ObserveHttpRequest("remember_memory", 302, 0.001);
  m.ObserveHttpRequest("remember_memory", 500, 0.001);
  m.ObserveHttpRequest("remember_memory", 0, 0.001);  // no status set: the server's fault
  const std::string text = m.Render();
  auto count = [&](const char* status_class) {
    return Value(
        text,
        std::string(
            R"(powercontext_http_requests_total{operation="remember_memory",status_class=")") +
            status_class + "\"}");
  };
  EXPECT_EQ(count("2xx"), 2);
  EXPECT_EQ(count("3xx"), 1);
  EXPECT_EQ(count("4xx"), 1);
  EXPECT_EQ(count("5xx"), 2);
  EXPECT_EQ(
      Value(text,
            R"(powercontext_http_request_duration_seconds_count{operation="remember_memory"})"),
      6);
  m.ObserveHttpRequest("remember_memory", 204, 0.001);
  EXPECT_EQ(
      Value(m.Render(),
            R"(powercontext_http_requests_total{operation="remember_memory",status_class="2xx"})"),
      3);
}

TEST(MetricsTest, HistogramBucketsAreCumulative) {
  constexpr double kBounds[] = {1, 2, 5};
  ops::Histogram h(kBounds);
  const double values[] = {0.5, 1.0, 1.5, 3.0, 100.0, std::nan(""), HUGE_VAL};
  for (double v : values) h.Observe(v);
  const ops::Histogram::Snapshot s = h.Read();
  EXPECT_EQ(s.bounds, std::vector<double>({1, 2, 5}));
  // le=1 holds 0.5 and 1 (a value equal to a bound is in its bucket); non-finite values dropped.
  EXPECT_EQ(s.cumulative, std::vector<uint64_t>({2, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(s.sum, 106);
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  ops::Metrics m;
  m.ObserveHttpRequest("a\"b\\c\nd", 200, 0.001);
  const std::string text = m.Render();
  ExpectWellFormed(text);
  EXPECT_EQ(
      Value(text, R"(powercontext_http_requests_total{operation="a\"b\\c\nd",status_class="2xx"})"),
      1)
      << text;
  EXPECT_EQ(text.find("a\"b"), std::string::npos) << "an unescaped quote ends the label early";
}

TEST(MetricsTest, OperationLabelsAreCapped) {
  ops::Metrics m;
  constexpr size_t kNames = ops::kMaxHttpOperations + 72;
  for (size_t i = 0; i < kNames; ++i) m.ObserveHttpRequest("op_" + std::to_string(i), 200, 0.001);
  // Not route ids, whatever the count: empty, too long, not UTF-8, and "other" itself.
  m.ObserveHttpRequest("", 200, 0.001);
  m.ObserveHttpRequest(std::string(ops::kMaxOperationBytes + 1, 'x'), 200, 0.001);
  m.ObserveHttpRequest("\xff\xfe", 200, 0.001);
  m.ObserveHttpRequest("op_0", 200, 0.001);  // a kept one still counts as itself
  const std::string text = m.Render();
  ExpectWellFormed(text);
  std::set<std::string> operations;
  static const std::regex kOperation(
      R"re(^powercontext_http_requests_total\{operation="([^"]*)")re");
  for (const std::string& line : Lines(text)) {
    std::smatch match;
    if (std::regex_search(line, match, kOperation)) operations.insert(match[1]);
  }
  EXPECT_EQ(operations.size(), ops::kMaxHttpOperations + 1);
  EXPECT_TRUE(operations.count("other"));
  EXPECT_TRUE(operations.count("op_127"));
  EXPECT_FALSE(operations.count("op_128"));
  EXPECT_EQ(
      Value(text, R"(powercontext_http_requests_total{operation="other",status_class="2xx"})"),
      72 + 3);
  EXPECT_EQ(Value(text, R"(powercontext_http_requests_total{operation="op_0",status_class="2xx"})"),
            2);

  ops::Metrics fresh;  // below the cap, a name that is no route id is "other" too
  fresh.ObserveHttpRequest("\xff", 200, 0.001);
  fresh.ObserveHttpRequest("other", 200, 0.001);
  EXPECT_EQ(Value(fresh.Render(),
                  R"(powercontext_http_requests_total{operation="other",status_class="2xx"})"),
            2);
}

TEST(MetricsTest, OpenConnectionsGoUpAndDown) {
  ops::Metrics m;
  m.HttpConnectionOpened();
  m.HttpConnectionOpened();
  m.HttpConnectionClosed();
  EXPECT_EQ(Value(m.Render(), "powercontext_http_open_connections"), 1);
  m.HttpConnectionClosed();
  EXPECT_EQ(Value(m.Render(), "powercontext_http_open_connections"), 0);
}

// A real store: each acknowledged group commit observes its COMMIT time and its writes; a write
// refused before it changed anything commits nothing and observes nothing.
TEST(MetricsTest, StoreCommitsAreMeasured) {
  testing::Fixture f;
  const std::string scope = f.NewScope();
  const double commits = Global("powercontext_commit_seconds_count");
  const double groups = Global("powercontext_commit_group_size_count");
  const double writes = Global("powercontext_commit_group_size_sum");
  PC_ASSERT_OK(
      f.memory->Remember({scope, "fact", "Run contract tests after migrations.", "", "test", {}}));
  EXPECT_EQ(Global("powercontext_commit_seconds_count"), commits + 1);
  EXPECT_EQ(Global("powercontext_commit_group_size_count"), groups + 1);
  EXPECT_EQ(Global("powercontext_commit_group_size_sum"), writes + 1);
  EXPECT_GT(Global("powercontext_commit_seconds_sum"), 0);

  auto stale = f.memory->Remember({scope, "fact", "Another fact.", "", "test", int64_t{99}});
  EXPECT_EQ(stale.status().code(), Code::kConflict);
  EXPECT_EQ(Global("powercontext_commit_seconds_count"), commits + 1);
  EXPECT_EQ(Global("powercontext_commit_group_size_count"), groups + 1);
  ExpectWellFormed(ops::RenderPrometheus());
}

TEST(MetricsTest, SearchesAreMeasuredByTheModeServed) {
  testing::Fixture f;
  HashEmbedder embedder(64);
  MemoryService memory(*f.store, ServiceLimits{}, &embedder);
  SearchService search(*f.store, &embedder);
  const std::string scope = f.NewScope();
  PC_ASSERT_OK(
      memory.Remember({scope, "fact", "Contract tests run after migrations.", "", "test", {}}));
  const std::string fts = R"(powercontext_search_duration_seconds_count{mode="fts"})";
  const std::string hybrid = R"(powercontext_search_duration_seconds_count{mode="hybrid"})";
  const double fts_before = Global(fts), hybrid_before = Global(hybrid);
  PC_ASSERT_OK(search.Search({scope, "contract tests", SearchMode::kFts, 10, false, std::nullopt}));
  auto served =
      search.Search({scope, "contract tests", SearchMode::kAuto, 10, false, std::nullopt});
  PC_ASSERT_OK(served);
  ASSERT_EQ(served->mode_used, SearchMode::kHybrid);
  EXPECT_FALSE(search.Search({scope, "x", SearchMode::kFts, 0, false, std::nullopt})
                   .ok());  // refused: not a search
  EXPECT_EQ(Global(fts), fts_before + 1);
  EXPECT_EQ(Global(hybrid), hybrid_before + 1);
}

// The vector gauges are read from the live caches: a loaded index shows, and goes when its cache
// does.
TEST(MetricsTest, VectorGaugesFollowTheCaches) {
  testing::Fixture f;
  HashEmbedder embedder(64);
  MemoryService memory(*f.store, ServiceLimits{}, &embedder);
  const std::string scope = f.NewScope();
  for (int i = 0; i < 3; ++i)
    PC_ASSERT_OK(
        memory.Remember({scope, "fact", "Vector fact " + std::to_string(i), "", "test", {}}));
  const double indexes = Global("powercontext_vector_indexes_loaded");
  const double vectors = Global("powercontext_vectors_loaded");
  {
    SearchService search(*f.store, &embedder);
    PC_ASSERT_OK(
        search.Search({scope, "vector fact", SearchMode::kVector, 10, false, std::nullopt}));
    EXPECT_EQ(Global("powercontext_vector_indexes_loaded"), indexes + 1);
    EXPECT_EQ(Global("powercontext_vectors_loaded"), vectors + 3);
  }
  EXPECT_EQ(Global("powercontext_vector_indexes_loaded"), indexes);
  EXPECT_EQ(Global("powercontext_vectors_loaded"), vectors);
}

TEST(MetricsTest, FlushOutcomesAndExtractionCallsAreCounted) {
  testing::Fixture f;
  const std::string scope = f.NewScope();
  auto flushes = [](const char* outcome) {
    return Global(std::string(R"(powercontext_flush_total{outcome=")") + outcome + "\"}");
  };
  auto extracts = [](const char* outcome) {
    return Global(std::string(R"(powercontext_provider_calls_total{provider="extract",outcome=")") +
                  outcome + "\"}");
  };
  const double unavailable = flushes("unavailable"), idle = flushes("idle"),
               failed = flushes("model_failed"), processed = flushes("processed"),
               ok_calls = extracts("ok"), error_calls = extracts("error");
  const double extract_seconds =
      Global(R"(powercontext_provider_duration_seconds_count{provider="extract"})");

  EXPECT_EQ(FlushService(*f.store, nullptr, nullptr).Flush(scope).status().code(),
            Code::kCapabilityUnavailable);
  CommandExtractorOptions failing;
  failing.command = "cat >/dev/null; exit 3";
  CommandExtractor fails(failing);
  PC_ASSERT_OK(
      FlushService(*f.store, &fails, nullptr).Flush(scope));  // nothing to process: no call
  SourceService sources(*f.store);
  PC_ASSERT_OK(
      sources.Add(scope, {{"work_log", "", "Switched amounts to Decimal.", "{}", std::nullopt}}));
  EXPECT_EQ(FlushService(*f.store, &fails, nullptr).Flush(scope).status().code(),
            Code::kProviderError);
  CommandExtractorOptions empty;
  empty.command = "cat >/dev/null; echo '{\"operations\":[]}'";
  CommandExtractor answers(empty);
  PC_ASSERT_OK(FlushService(*f.store, &answers, nullptr).Flush(scope));

  EXPECT_EQ(flushes("unavailable"), unavailable + 1);
  EXPECT_EQ(flushes("idle"), idle + 1);
  EXPECT_EQ(flushes("model_failed"), failed + 1);
  EXPECT_EQ(flushes("processed"), processed + 1);
  EXPECT_EQ(extracts("error"), error_calls + 1);
  EXPECT_EQ(extracts("ok"), ok_calls + 1);
  EXPECT_EQ(Global(R"(powercontext_provider_duration_seconds_count{provider="extract"})"),
            extract_seconds + 2);
}

// An embedder that fails every call, as a dead endpoint does.
class DeadEmbedder final : public Embedder {
 public:
  using Embedder::Embed;
  EmbeddingProfile profile() const override { return {"fake", "dead", 8, "l2"}; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>&) override {
    ++calls;
    return Status(Code::kProviderUnavailable, "connection refused");
  }
  int calls = 0;
};

TEST(MetricsTest, ProviderCallsAndSkipsAreCounted) {
  auto dead = std::make_unique<DeadEmbedder>();
  DeadEmbedder* inner = dead.get();
  ResilientEmbedder embedder(std::move(dead), std::chrono::seconds(60));
  auto calls = [](const char* outcome) {
    return Global(std::string(R"(powercontext_provider_calls_total{provider="embed",outcome=")") +
                  outcome + "\"}");
  };
  const double unavailable = calls("unavailable"), skipped = calls("skipped"), ok = calls("ok");
  const double timed = Global(R"(powercontext_provider_duration_seconds_count{provider="embed"})");
  EXPECT_FALSE(embedder.Embed({"a"}).ok());  // reaches the endpoint: it fails, and is rested
  EXPECT_FALSE(embedder.Embed({"b"}).ok());  // answered at once
  EXPECT_FALSE(embedder.Embed({"c"}).ok());
  EXPECT_EQ(inner->calls, 1);
  EXPECT_EQ(calls("unavailable"), unavailable + 1);
  EXPECT_EQ(calls("skipped"), skipped + 2);
  EXPECT_EQ(calls("ok"), ok);
  EXPECT_EQ(Global(R"(powercontext_provider_duration_seconds_count{provider="embed"})"), timed + 1)
      << "a skipped call has no latency";
}

}  // namespace
}  // namespace pc
