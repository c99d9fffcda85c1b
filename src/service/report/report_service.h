// A Project's Handoff Report (upstream RFC 0082, docs/handoff-reports.md): the latest committed
// handoff of each included Workstream, its evidence checked now, and the activity hosts recorded
// — or, for a period, the activity in it and the handoffs observed at its two ends. A report is a
// read-only projection, never stored. Its selection is frozen first: the catalog and the activity
// cursor in one read, then every Workstream's handoff head read twice, equal vectors making an
// `optimistic_stable` selection (unequal ones are retried, then 503 handoff_report_busy); nothing
// after reads a moving head. The model here is what api/report_codec.h encodes as canonical JSON
// (with the digests) and report_markdown.h renders; neither reads the store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/report.h"
#include "service/handoff/handoff_service.h"
#include "service/report/activity_service.h"
#include "store/store.h"

namespace pc {

inline constexpr size_t kMaxReportWorkstreams = 100;
inline constexpr size_t kMaxReportActivities = 5000;
inline constexpr size_t kMaxReportBytes = 10 * 1024 * 1024;
inline constexpr int64_t kMaxReportPeriodMs = int64_t{366} * 86400000;
inline constexpr int kReportSelectionAttempts = 3;
inline constexpr const char* kReportSchema = "powercontext.handoff-report.v1";
inline constexpr const char* kReportRenderer = "powercontext-cpp.handoff-report.1";

struct ReportPeriod {
  int64_t start_ms = 0, end_ms = 0;     // [start, end)
  std::optional<std::string> timezone;  // nullopt: the Project's
  bool compare_to_previous_period = false;
};

struct ReportRequest {
  std::string project_id;
  std::optional<std::string> locale;  // nullopt: the Project's default_locale
  bool include_evidence_checks = true;
  std::string format = "markdown";  // markdown or json
  bool include_archived = false;
  std::optional<ReportPeriod> period;
  std::optional<int64_t> generated_at_ms;  // tests: a fixed clock
};

// A handoff at one end of a selection, with its checks (when they ran).
struct SelectedHandoff {
  Handoff handoff;
  std::string basis;  // latest (a handoff report), observed (a period's end or baseline)
  std::optional<std::vector<HandoffEvidenceCheck>> checks;  // nullopt: not_checked
};

struct WorkstreamReport {
  ReportWorkstream workstream;  // the catalog revision frozen
  std::string scope_key;
  std::optional<SelectedHandoff> handoff;   // the end selection; nullopt: no_handoff
  std::optional<SelectedHandoff> baseline;  // periodic only
  std::string end_basis;                    // latest, observed, end_unknown, no_handoff
  std::string baseline_basis;               // periodic: observed, baseline_unknown; "" otherwise
  std::vector<ActivityView> activities;
  int64_t activity_after_handoff = 0;  // events after the handoff, by comparable time
  std::string reporting_status;        // reported, reported_with_omissions, evidence_unavailable,
                                       // no_handoff, activity_without_handoff
  std::string activity_status;         // none_observed, activity_after_handoff,
                                       // activity_without_handoff, current_only, unknown
  std::string relation;                // comparable, not_comparable, no_handoff
};

struct ReportCoverage {
  int64_t total_included_workstreams = 0, catalog_matched_workstreams = 0, selected_workstreams = 0,
          missing_handoff_workstreams = 0, reported_with_omissions = 0,
          unchecked_evidence_workstreams = 0, unavailable_evidence_workstreams = 0,
          activity_after_handoff_workstreams = 0, activity_without_handoff_workstreams = 0,
          unassigned_activity_count = 0, unknown_activity_time_count = 0;
};

struct ReportSummary {
  int64_t continuable = 0, blocked = 0, complete = 0, no_handoff = 0;
};

// compare_to_previous_period: the period of the same length just before, counted alike.
struct PreviousPeriod {
  int64_t start_ms = 0, end_ms = 0;
  int64_t activity_count = 0;
  ReportSummary summary;  // from the handoffs observed at its end
};

struct HandoffReport {
  std::string locale, format, report_kind;  // report_kind: handoff or periodic
  int64_t generated_at_ms = 0;
  ReportProject project;  // its version is the catalog revision frozen
  bool include_archived = false, include_evidence_checks = true;
  std::optional<ReportPeriod> period;  // its timezone resolved
  std::string timezone;                // the period's, else the Project's
  std::string selection_consistency = "optimistic_stable";
  int64_t activity_cursor = 0;
  std::vector<WorkstreamReport> workstreams;  // blocked, continuable, no_handoff, complete
  std::vector<ActivityView> unassigned;       // events of no Workstream
  ReportCoverage coverage;
  ReportSummary summary;
  std::optional<PreviousPeriod> previous;
};

class ReportService {
 public:
  explicit ReportService(Store& store) : store_(store) {}

  // 404 for an unknown Project; 422 unsupported_report_locale / unsupported_report_format /
  // invalid_report_period; 413 handoff_report_too_large past 100 Workstreams or 5,000 events;
  // 503 handoff_report_busy when the heads kept moving.
  Result<HandoffReport> Build(const ReportRequest& req);

 private:
  Store& store_;
};

}  // namespace pc
