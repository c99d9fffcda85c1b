#include "ops/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/utf8.h"

namespace pc::ops {
namespace {

// Bucket bounds, in the unit of each family. Request and search latencies: from half a
// millisecond (an fts search of a small memory) to the 30 s a model timeout can cost.
constexpr double kLatencyBounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                     0.25,   0.5,   1,      2.5,   5,    10,    30};
// COMMIT and its log's fsync: ~0.1 ms on NVMe to tens of ms on a busy disk.
constexpr double kCommitBounds[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                    0.025,  0.05,    0.1,    0.25,  0.5,    1,     2.5};
// Writes per group: powers of two up to the store's kMaxGroupWrites (64).
constexpr double kGroupBounds[] = {1, 2, 4, 8, 16, 32, 64};
// Model calls: embeddings in milliseconds, extraction up to its timeout (minutes at most).
constexpr double kProviderBounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                      1,     2.5,  5,     10,   30,  60,   120};

constexpr const char* kStatusClasses[] = {"2xx", "3xx", "4xx", "5xx"};
constexpr const char* kSearchModes[] = {"fts", "vector", "hybrid", "graph"};
constexpr const char* kProviders[] = {"embed", "rerank", "extract"};
constexpr const char* kProviderOutcomes[] = {"ok", "error", "unavailable", "skipped"};
constexpr const char* kFlushResults[] = {"processed", "idle", "model_failed", "unavailable",
                                         "error"};

size_t StatusClass(int http_status) {
  if (http_status < 200 || http_status > 599) return 3;  // not a final status: the server's fault
  return static_cast<size_t>(http_status / 100 - 2);
}

// A float as Prometheus clients print one: the shortest text that reads back the same value.
std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

// A label value between double quotes: backslash, quote and line feed escaped (format 0.0.4).
std::string Quoted(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

void Header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

// `labels` is empty or `key="value",…` (no braces); one sample line.
void Sample(std::string& out, std::string_view name, std::string_view labels,
            const std::string& value) {
  out.append(name);
  if (!labels.empty()) out.append("{").append(labels).append("}");
  out.append(" ").append(value).append("\n");
}

void HistogramSamples(std::string& out, std::string_view name, const std::string& labels,
                      const Histogram& h) {
  const Histogram::Snapshot s = h.Read();
  const std::string prefix = labels.empty() ? "" : labels + ",";
  const std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i < s.cumulative.size(); ++i) {
    const double le = i < s.bounds.size() ? s.bounds[i] : INFINITY;
    Sample(out, bucket, prefix + "le=" + Quoted(Number(le)), std::to_string(s.cumulative[i]));
  }
  Sample(out, std::string(name) + "_sum", labels, Number(s.sum));
  Sample(out, std::string(name) + "_count", labels, std::to_string(s.cumulative.back()));
}

std::string Label(std::string_view key, std::string_view value) {
  return std::string(key) + "=" + Quoted(value);
}

}  // namespace

Histogram::Histogram(std::span<const double> bounds) : size_(std::min(bounds.size(), kMaxBounds)) {
  std::copy_n(bounds.begin(), size_, bounds_.begin());
}

void Histogram::Observe(double value) {
  if (!std::isfinite(value)) return;
  const size_t i = static_cast<size_t>(
      std::lower_bound(bounds_.begin(), bounds_.begin() + size_, value) - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  s.bounds.assign(bounds_.begin(), bounds_.begin() + size_);
  uint64_t total = 0;
  for (size_t i = 0; i <= size_; ++i) {
    total += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(total);
  }
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

struct Metrics::HttpOperation {
  explicit HttpOperation(std::string_view n) : name(n) {}
  const std::string name;
  std::array<Counter, 4> requests;  // by kStatusClasses
  Histogram seconds{kLatencyBounds};
};

Metrics::Metrics()
    : http_other_(std::make_unique<HttpOperation>(kOtherOperation)),
      commit_group_size_(kGroupBounds),
      commit_seconds_(kCommitBounds),
      search_seconds_{Histogram(kLatencyBounds), Histogram(kLatencyBounds),
                      Histogram(kLatencyBounds), Histogram(kLatencyBounds)},
      provider_seconds_{Histogram(kProviderBounds), Histogram(kProviderBounds),
                        Histogram(kProviderBounds)} {}

Metrics::~Metrics() = default;

Metrics::HttpOperation& Metrics::Operation(std::string_view name) {
  {
    std::shared_lock<std::shared_mutex> lock(http_mu_);
    if (auto it = http_by_name_.find(name); it != http_by_name_.end()) return *it->second;
    if (http_operations_.size() >= kMaxHttpOperations) return *http_other_;
  }
  if (name.empty() || name.size() > kMaxOperationBytes || name == kOtherOperation ||
      !IsValidUtf8(name))
    return *http_other_;
  std::unique_lock<std::shared_mutex> lock(http_mu_);
  if (auto it = http_by_name_.find(name); it != http_by_name_.end()) return *it->second;  // raced
  if (http_operations_.size() >= kMaxHttpOperations) return *http_other_;
  http_operations_.push_back(std::make_unique<HttpOperation>(name));
  HttpOperation* op = http_operations_.back().get();
  http_by_name_.emplace(op->name, op);
  return *op;
}

void Metrics::DeclareHttpOperation(std::string_view operation) { (void)Operation(operation); }

void Metrics::ObserveHttpRequest(std::string_view operation, int http_status, double seconds) {
  HttpOperation& op = Operation(operation);
  op.requests[StatusClass(http_status)].Add();
  op.seconds.Observe(seconds);
}

void Metrics::ObserveSearch(SearchModeLabel mode, double seconds) {
  search_seconds_[static_cast<size_t>(mode)].Observe(seconds);
}

void Metrics::ObserveProviderCall(Provider provider, Code code, double seconds) {
  const ProviderOutcome outcome = code == Code::kOk ? ProviderOutcome::kOk
                                  : code == Code::kProviderUnavailable
                                      ? ProviderOutcome::kUnavailable
                                      : ProviderOutcome::kError;
  provider_calls_[static_cast<size_t>(provider)][static_cast<size_t>(outcome)].Add();
  provider_seconds_[static_cast<size_t>(provider)].Observe(seconds);
}

void Metrics::CountProviderSkipped(Provider provider) {
  provider_calls_[static_cast<size_t>(provider)][static_cast<size_t>(ProviderOutcome::kSkipped)]
      .Add();
}

void Metrics::CountFlush(FlushResult result) { flushes_[static_cast<size_t>(result)].Add(); }

uint64_t Metrics::AddVectorStateReader(std::function<VectorState()> reader) {
  std::lock_guard<std::mutex> lock(vector_mu_);
  const uint64_t id = next_vector_reader_++;
  vector_readers_.emplace(id, std::move(reader));
  return id;
}

void Metrics::RemoveVectorStateReader(uint64_t id) {
  std::lock_guard<std::mutex> lock(vector_mu_);
  vector_readers_.erase(id);
}

void Metrics::RenderHttp(std::string& out) const {
  std::shared_lock<std::shared_mutex> lock(http_mu_);
  std::vector<const HttpOperation*> ops;
  for (const auto& op : http_operations_) ops.push_back(op.get());
  std::sort(ops.begin(), ops.end(),
            [](const HttpOperation* a, const HttpOperation* b) { return a->name < b->name; });
  const bool other_used = http_other_->seconds.Read().cumulative.back() > 0;
  if (other_used) ops.push_back(http_other_.get());

  Header(out, "powercontext_http_requests_total", "counter",
         "HTTP requests answered, by route operation and status class.");
  for (const HttpOperation* op : ops)
    for (size_t c = 0; c < op->requests.size(); ++c)
      Sample(out, "powercontext_http_requests_total",
             Label("operation", op->name) + "," + Label("status_class", kStatusClasses[c]),
             std::to_string(op->requests[c].value()));
  Header(out, "powercontext_http_request_duration_seconds", "histogram",
         "Time from a request's arrival to its answer, by route operation.");
  for (const HttpOperation* op : ops)
    HistogramSamples(out, "powercontext_http_request_duration_seconds",
                     Label("operation", op->name), op->seconds);
  Header(out, "powercontext_http_open_connections", "gauge", "HTTP connections open now.");
  Sample(out, "powercontext_http_open_connections", "",
         std::to_string(http_open_connections_.value()));
}

void Metrics::RenderVectors(std::string& out) const {
  VectorState total;
  {
    std::lock_guard<std::mutex> lock(vector_mu_);
    for (const auto& [id, read] : vector_readers_) {
      const VectorState s = read();
      total.indexes += s.indexes;
      total.vectors += s.vectors;
      total.graphs += s.graphs;
    }
  }
  Header(out, "powercontext_vector_indexes_loaded", "gauge",
         "Memories whose vector index is in memory.");
  Sample(out, "powercontext_vector_indexes_loaded", "", std::to_string(total.indexes));
  Header(out, "powercontext_vectors_loaded", "gauge",
         "Vectors held in memory, over all loaded indexes.");
  Sample(out, "powercontext_vectors_loaded", "", std::to_string(total.vectors));
  Header(out, "powercontext_vector_graphs_loaded", "gauge",
         "Loaded indexes searched through an approximate graph.");
  Sample(out, "powercontext_vector_graphs_loaded", "", std::to_string(total.graphs));
  Header(out, "powercontext_vector_graph_builds_total", "counter", "Approximate graphs built.");
  Sample(out, "powercontext_vector_graph_builds_total", "",
         std::to_string(vector_graphs_built_.value()));
  Header(out, "powercontext_vector_graph_restores_total", "counter",
         "Approximate graphs read back from disk instead of built.");
  Sample(out, "powercontext_vector_graph_restores_total", "",
         std::to_string(vector_graphs_restored_.value()));
}

std::string Metrics::Render() const {
  std::string out;
  RenderHttp(out);

  Header(out, "powercontext_commit_group_size", "histogram",
         "Writes committed together in one group commit.");
  HistogramSamples(out, "powercontext_commit_group_size", "", commit_group_size_);
  Header(out, "powercontext_commit_seconds", "histogram",
         "Time of a group's COMMIT, its fsync included (SQLite: until the log's sync that follows "
         "it).");
  HistogramSamples(out, "powercontext_commit_seconds", "", commit_seconds_);
  Header(out, "powercontext_commit_reruns_total", "counter",
         "Groups run again with a savepoint per write after one write failed halfway.");
  Sample(out, "powercontext_commit_reruns_total", "", std::to_string(commit_reruns_.value()));

  Header(out, "powercontext_search_duration_seconds", "histogram",
         "Search latency, by the mode that served it.");
  for (size_t m = 0; m < search_seconds_.size(); ++m)
    HistogramSamples(out, "powercontext_search_duration_seconds", Label("mode", kSearchModes[m]),
                     search_seconds_[m]);

  Header(out, "powercontext_provider_calls_total", "counter",
         "Model provider calls, by provider and outcome.");
  for (size_t p = 0; p < provider_calls_.size(); ++p)
    for (size_t o = 0; o < provider_calls_[p].size(); ++o)
      Sample(out, "powercontext_provider_calls_total",
             Label("provider", kProviders[p]) + "," + Label("outcome", kProviderOutcomes[o]),
             std::to_string(provider_calls_[p][o].value()));
  Header(out, "powercontext_provider_duration_seconds", "histogram",
         "Latency of model provider calls that reached the provider, retries included.");
  for (size_t p = 0; p < provider_seconds_.size(); ++p)
    HistogramSamples(out, "powercontext_provider_duration_seconds",
                     Label("provider", kProviders[p]), provider_seconds_[p]);

  Header(out, "powercontext_flush_total", "counter",
         "Flushes (model extraction of a source window), by outcome.");
  for (size_t r = 0; r < flushes_.size(); ++r)
    Sample(out, "powercontext_flush_total", Label("outcome", kFlushResults[r]),
           std::to_string(flushes_[r].value()));

  RenderVectors(out);
  return out;
}

Metrics& metrics() {
  static Metrics* const registry = new Metrics();
  return *registry;
}

std::string RenderPrometheus() { return metrics().Render(); }

}  // namespace pc::ops
