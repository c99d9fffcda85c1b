// What parsing one request body costs, by shape and size: median time, time per byte, and the
// heap's peak as a multiple of the body (this program counts operator new:
// testing/alloc_counter.h). Beside it, nlohmann's callback parse, which the server used before
// issue 27 (its time grew with the square of an array's length), for the sizes it finishes in
// reasonable time.
//
//   build/bench/json_bench [--runs 5] [--max-kib 8192] [--baseline-max-kib 512]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloc_counter.h"
#include "api/body_limits.h"
#include "bench_util.h"
#include "common/json_parse.h"
#include "json_shapes.h"

namespace {

struct Measure {
  double median_ms = 0;
  size_t peak = 0;
  bool ok = false;
};

template <class Parse>
Measure Run(int runs, const std::string& text, Parse parse) {
  Measure m;
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    pc::alloc_counter::ResetPeak();
    const size_t before = pc::alloc_counter::InUse();
    const auto start = std::chrono::steady_clock::now();
    m.ok = parse(text);
    ms.push_back(pc::MillisSince(start));
    m.peak = std::max(m.peak, pc::alloc_counter::Peak() - before);
  }
  m.median_ms = pc::Percentile(ms, 0.5);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  size_t max_kib = 8192, baseline_max_kib = 512;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs"))
      runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-kib"))
      max_kib = std::strtoul(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--baseline-max-kib"))
      baseline_max_kib = std::strtoul(argv[i + 1], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: json_bench [--runs N] [--max-kib K] [--baseline-max-kib K]\n");
      return 2;
    }
  }
  const pc::JsonLimits limits = pc::JsonLimitsForBody(pc::BodyLimits{}.batch);
  std::printf("%-14s %9s %9s %10s %9s %11s %14s\n", "shape", "KiB", "result", "median ms",
              "ns/byte", "peak/size", "callback ms");
  for (const auto& shape : pc::testing::JsonShapes()) {
    for (size_t kib : {1, 8, 64, 512, 1024, 4096, 8192}) {
      if (kib > max_kib) break;
      const std::string text = shape.make(kib * 1024);
      Measure ours =
          Run(runs, text, [&](const std::string& t) { return pc::ParseJson(t, limits).ok(); });
      std::string baseline = "-";
      if (kib <= baseline_max_kib) {
        auto keep_all = [](int, nlohmann::json::parse_event_t, nlohmann::json&) { return true; };
        Measure before = Run(1, text, [&](const std::string& t) {
          return !nlohmann::json::parse(t, keep_all, /*allow_exceptions=*/false).is_discarded();
        });
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f", before.median_ms);
        baseline = buf;
      }
      std::printf("%-14s %9zu %9s %10.3f %9.2f %11.1f %14s\n", shape.name, kib,
                  ours.ok ? "parsed" : "refused", ours.median_ms,
                  ours.median_ms * 1e6 / static_cast<double>(text.size()),
                  static_cast<double>(ours.peak) / static_cast<double>(text.size()),
                  baseline.c_str());
    }
  }
  return 0;
}
