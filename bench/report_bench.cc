// A Project's Handoff Report at the size RFC 0082 bounds one report by (issue 31,
// docs/handoff-reports.md): W Workstreams, each with a committed handoff of three cited
// statements, and E Activity Events spread over them, in a SQLite store. Timed: what
// POST /v1/handoff-reports/get does in process — freeze the catalog and the activity log, read the
// heads twice, re-check every handoff's evidence, assemble the canonical model, digest it (RFC
// 8785) and render it — as Markdown (en) and as JSON, the median and p90 of R runs each.
//
//   build/bench/report_bench --workstreams 100 --events 5000 --runs 9
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "api/report_codec.h"
#include "bench_util.h"
#include "common/clock.h"
#include "service/flush/source_service.h"
#include "service/handoff/handoff_service.h"
#include "service/memory/memory_service.h"
#include "service/report/report_services.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int Run(int workstreams, int events, int runs) {
  const std::string dir = ScratchDir("pc-report-bench");
  sqlite::SqliteOptions o;
  o.data_dir = dir;
  o.durability = sqlite::Durability::kNormal;  // the fill is not what is measured
  auto store = std::move(sqlite::SqliteStore::Open(o)).value();
  MemoryService memory(*store, ServiceLimits{}, nullptr);
  SourceService sources(*store);
  HandoffService handoffs(*store, nullptr);
  ReportServices rs(*store);
  const auto fill = std::chrono::steady_clock::now();
  auto project =
      rs.catalog.CreateProject({"bench", "Bench", std::nullopt, "en", "Asia/Shanghai"}, "bench");
  if (!project.ok()) return std::fprintf(stderr, "%s\n", project.status().ToString().c_str()), 1;
  std::vector<std::string> scopes;
  for (int w = 0; w < workstreams; ++w) {
    const std::string key = "bench:ws-" + std::to_string(w);
    if (!memory.CreateScope(key).ok()) return 1;
    scopes.push_back(key);
    auto reg = rs.catalog.RegisterWorkstream({project->project_id,
                                              key,
                                              "W-" + std::to_string(w),
                                              "Workstream " + std::to_string(w),
                                              "feature",
                                              "included",
                                              {},
                                              {"bench"}},
                                             "bench");
    if (!reg.ok()) return std::fprintf(stderr, "%s\n", reg.status().ToString().c_str()), 1;
    const std::string evidence = "run-" + std::to_string(w);
    if (!sources.Add(key, {{"work_log", "", "what happened in " + key, "{}", evidence}}).ok())
      return 1;
    HandoffCitation c;
    c.kind = HandoffCitationKind::kSource;
    c.source_name = kContentSourceName;
    c.source_id = evidence;
    HandoffContent content;
    content.objective = "Finish workstream " + std::to_string(w) + " 并保持契约测试通过";
    for (int s = 0; s < 3; ++s)
      content.state.push_back({"Statement " + std::to_string(s) + " of " + key, {c}});
    content.disposition =
        w % 3 == 0 ? HandoffDisposition::kBlocked : HandoffDisposition::kContinuable;
    content.next_action = HandoffStatement{"Next step of " + key, {c}};
    auto committed = handoffs.Commit(key, PreparedHandoff{key, std::nullopt, content});
    if (!committed.ok())
      return std::fprintf(stderr, "%s\n", committed.status().ToString().c_str()), 1;
  }
  for (int e = 0; e < events; ++e) {
    RecordActivityRequest r;
    r.event.project_id = project->project_id;
    r.event.source = "git_commit";
    r.event.source_event_id = "commit-" + std::to_string(e);
    r.event.time_basis = "source_reported";
    r.event.occurred_at_ms = NowMillis() - int64_t{e} * 60000;
    r.event.title = "commit " + std::to_string(e) + ": fix the parser";
    r.scope = scopes[static_cast<size_t>(e % workstreams)];
    if (!rs.activities.Record(r).ok()) return 1;
  }
  std::printf("filled %d Workstreams, %d events in %.1f s\n", workstreams, events, Since(fill));
  for (const char* format : {"markdown", "json"}) {
    std::vector<double> times;
    size_t bytes = 0;
    for (int i = 0; i < runs; ++i) {
      ReportRequest req{project->project_id};
      req.format = format;
      const auto t0 = std::chrono::steady_clock::now();
      auto report = rs.reports.Build(req);
      if (!report.ok()) return std::fprintf(stderr, "%s\n", report.status().ToString().c_str()), 1;
      auto out = RenderReport(*report);
      if (!out.ok()) return std::fprintf(stderr, "%s\n", out.status().ToString().c_str()), 1;
      times.push_back(Since(t0));
      bytes = std::string(format) == "json" ? out->report.dump().size() : out->markdown.size();
    }
    std::printf("%-8s %3d Workstreams %5d events: median %.3f s, p90 %.3f s (%d runs), %zu bytes\n",
                format, workstreams, events, Percentile(times, 0.5), Percentile(times, 0.9), runs,
                bytes);
  }
  store.reset();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  int workstreams = 100, events = 5000, runs = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--workstreams")
      workstreams = std::stoi(argv[i + 1]);
    else if (a == "--events")
      events = std::stoi(argv[i + 1]);
    else if (a == "--runs")
      runs = std::stoi(argv[i + 1]);
    else
      return std::fprintf(stderr,
                          "usage: report_bench [--workstreams W] [--events E] [--runs R]\n"),
             2;
  }
  return pc::Run(workstreams, events, runs);
}
