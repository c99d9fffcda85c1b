// Prometheus metrics (issue 14; RFC 0046's metrics boundary): counters, gauges and fixed-bucket
// histograms that the layers record into on their hot paths, rendered for GET /metrics in the
// text exposition format 0.0.4. Every label value comes from a bounded set the code defines: the
// enums below, and HTTP operation names capped at kMaxHttpOperations distinct values (any later
// one counts as "other"). No label ever carries a scope id, a request id, a raw path or content.
//
// There is one registry per process (metrics()): a scrape describes the process, and the layers
// that record into it (store, services, providers) are built in many places, tests included.
// Tests that need exact values construct their own Metrics.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace pc::ops {

// Distinct HTTP operation labels kept; later names are counted as kOtherOperation. The route
// table declares ~45 operations, so the cap only bites when a caller passes something else.
inline constexpr size_t kMaxHttpOperations = 128;
// An operation name longer than this, empty, or not UTF-8 is not a route id: counted as "other".
inline constexpr size_t kMaxOperationBytes = 64;
inline constexpr std::string_view kOtherOperation = "other";

enum class SearchModeLabel { kFts, kVector, kHybrid, kGraph };  // the mode a search was served with
enum class Provider { kEmbed, kRerank, kExtract };
// ok; error: answered, but not usably; unavailable: unreachable or no answer in time; skipped:
// answered at once without a call, the endpoint being rested after a failure.
enum class ProviderOutcome { kOk, kError, kUnavailable, kSkipped };
// processed: a window committed; idle: nothing to process; model_failed: the model failed or
// answered nonsense (nothing committed); unavailable: no extraction provider; error: anything else.
enum class FlushResult { kProcessed, kIdle, kModelFailed, kUnavailable, kError };

class Counter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void Add(int64_t n) { value_.fetch_add(n, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// Observations counted into buckets fixed at construction; lock-free.
class Histogram {
 public:
  static constexpr size_t kMaxBounds = 16;
  // `bounds`: ascending finite upper bounds (at most kMaxBounds); +Inf is implied.
  explicit Histogram(std::span<const double> bounds);
  // A value equal to a bound counts in that bound's bucket (Prometheus `le`). NaN and infinities
  // are dropped: one would poison _sum for the life of the process.
  void Observe(double value);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<uint64_t> cumulative;  // per bound, then +Inf; the last is the count
    double sum = 0;
  };
  // The buckets read once each: concurrent observations may land in `sum` and not in the counts
  // (or the reverse), but +Inf always equals _count.
  Snapshot Read() const;

 private:
  std::array<double, kMaxBounds> bounds_{};
  size_t size_ = 0;
  std::array<std::atomic<uint64_t>, kMaxBounds + 1> buckets_{};
  std::atomic<double> sum_{0};
};

// What the in-memory vector indexes hold now, read when the metrics are rendered.
struct VectorState {
  int64_t indexes = 0;  // memories with an index in memory
  int64_t vectors = 0;  // vectors held, over all of them
  int64_t graphs = 0;   // memories searched through an approximate graph
};

// A registry of PowerContext's metric families. All methods are thread-safe; the record methods
// take no lock except the HTTP ones (a shared lock to find the operation).
class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // HTTP. `operation` is a route table operation id (or "unmatched"); declaring the table's
  // operations at start-up renders them at zero before their first request.
  void DeclareHttpOperation(std::string_view operation);
  // One answered request: `http_status` counts in its class (2xx…5xx; anything outside 200–599
  // counts as 5xx), `seconds` in the operation's latency histogram.
  void ObserveHttpRequest(std::string_view operation, int http_status, double seconds);
  void HttpConnectionOpened() { http_open_connections_.Add(1); }
  void HttpConnectionClosed() { http_open_connections_.Add(-1); }

  // Store: the writes one group's COMMIT acknowledged; the time of that COMMIT (the WAL fsync);
  // a group run again with a savepoint per write after one of its writes failed halfway.
  void ObserveCommitGroup(size_t writes) {
    commit_group_size_.Observe(static_cast<double>(writes));
  }
  void ObserveCommitSeconds(double seconds) { commit_seconds_.Observe(seconds); }
  void CountCommitRerun() { commit_reruns_.Add(); }

  void ObserveSearch(SearchModeLabel mode, double seconds);
  // A call that reached the provider: its outcome from the code it returned (kOk on success).
  void ObserveProviderCall(Provider provider, Code code, double seconds);
  void CountProviderSkipped(Provider provider);
  void CountFlush(FlushResult result);
  void CountVectorGraphBuilt() { vector_graphs_built_.Add(); }
  void CountVectorGraphRestored() { vector_graphs_restored_.Add(); }

  // A source of the vector gauges (a VectorCache), summed over all sources at each render. The
  // reader is called under the registry's lock: it must not record metrics. Returns the id to
  // remove it with, which the source must do before it is destroyed.
  uint64_t AddVectorStateReader(std::function<VectorState()> reader);
  void RemoveVectorStateReader(uint64_t id);

  // Every family in the text exposition format 0.0.4, names prefixed powercontext_.
  std::string Render() const;

 private:
  struct HttpOperation;
  HttpOperation& Operation(std::string_view name);
  void RenderHttp(std::string& out) const;
  void RenderVectors(std::string& out) const;

  struct TransparentHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  mutable std::shared_mutex http_mu_;
  std::unordered_map<std::string, HttpOperation*, TransparentHash, std::equal_to<>> http_by_name_;
  std::vector<std::unique_ptr<HttpOperation>> http_operations_;  // at most kMaxHttpOperations
  std::unique_ptr<HttpOperation> http_other_;
  Gauge http_open_connections_;

  Histogram commit_group_size_;
  Histogram commit_seconds_;
  Counter commit_reruns_;
  std::array<Histogram, 4> search_seconds_;               // by SearchModeLabel
  std::array<std::array<Counter, 4>, 3> provider_calls_;  // by Provider, ProviderOutcome
  std::array<Histogram, 3> provider_seconds_;             // by Provider
  std::array<Counter, 5> flushes_;                        // by FlushResult
  Counter vector_graphs_built_;
  Counter vector_graphs_restored_;

  mutable std::mutex vector_mu_;
  uint64_t next_vector_reader_ = 1;
  std::map<uint64_t, std::function<VectorState()>> vector_readers_;
};

// The process's registry, which the layers record into (never destroyed: threads may record
// while the process exits).
Metrics& metrics();
// metrics().Render(): the body of GET /metrics (Content-Type kPrometheusContentType).
std::string RenderPrometheus();
inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// Seconds from `start` to now, on the steady clock.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs `call()` (it returns a Result) and records it in metrics() as one call to `provider`.
template <typename Call>
auto MeasureProviderCall(Provider provider, Call&& call) -> decltype(call()) {
  const auto started = std::chrono::steady_clock::now();
  auto out = call();
  metrics().ObserveProviderCall(provider, out.ok() ? Code::kOk : out.status().code(),
                                SecondsSince(started));
  return out;
}

}  // namespace pc::ops
