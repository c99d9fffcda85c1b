#include "service/report/report_service.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "common/clock.h"
#include "model/citation.h"
#include "service/report/report_checks.h"
#include "service/report/time_zone.h"

namespace pc {
namespace {

Status TooLarge(const std::string& message, int64_t selected) {
  return Status(Code::kReportTooLarge,
                message + ": filter by kind or archive state, or report a shorter period")
      .WithDetail("selected_workstreams", selected);
}

Status CheckRequest(const ReportRequest& req) {
  PC_RETURN_IF_ERROR(ProjectId("project_id", req.project_id));
  if (req.locale && !OneOf(*req.locale, {"zh-CN", "en"}))
    return Status(Code::kUnsupportedReportLocale, "locale must be zh-CN or en")
        .WithDetail("field", "locale");
  if (!OneOf(req.format, {"markdown", "json"}))
    return Status(Code::kUnsupportedReportFormat, "format must be markdown or json")
        .WithDetail("field", "format");
  if (req.period) {
    const ReportPeriod& p = *req.period;
    if (p.start_ms >= p.end_ms)
      return Status(Code::kInvalidReportPeriod, "period.start must be before period.end")
          .WithDetail("field", "period.end");
    if (p.end_ms - p.start_ms > kMaxReportPeriodMs)
      return Status(Code::kInvalidReportPeriod, "a period is at most 366 days")
          .WithDetail("field", "period.end");
    if (p.timezone && !KnownTimeZone(*p.timezone))
      return Status(Code::kInvalidReportPeriod,
                    "period.timezone must be an IANA time zone name such as Asia/Shanghai")
          .WithDetail("field", "period.timezone");
  }
  return Status::Ok();
}

// "hnd_…@3" (or "handoff/hnd_…@3"): the exact handoff a handoff_observation names in its
// source_ref (provider "powercontext").
std::optional<MemoryRef> ObservedHandoff(const ReportActivity& a) {
  if (a.source != "handoff_observation" || !a.source_ref ||
      a.source_ref->provider != "powercontext")
    return std::nullopt;
  std::string_view s = a.source_ref->external_id;
  if (s.rfind("handoff/", 0) == 0) s.remove_prefix(8);
  const size_t at = s.rfind('@');
  if (at == std::string_view::npos || s.rfind("hnd_", 0) != 0) return std::nullopt;
  int64_t rev = 0;
  auto [p, ec] = std::from_chars(s.data() + at + 1, s.data() + s.size(), rev);
  if (ec != std::errc() || p != s.data() + s.size() || rev < 1) return std::nullopt;
  return MemoryRef{kHandoffFamily, std::string(s.substr(0, at)), rev};
}

// What the catalog and the activity log say at one moment: read in one transaction.
struct Frozen {
  ReportProject project;
  std::vector<ReportWorkstream> matched;    // by scope_id
  std::map<std::string, std::string> keys;  // scope_id → key
  int64_t total_included = 0;
  int64_t cursor = 0;
  std::vector<ReportActivity> events;        // the report's (in the period, for a periodic one)
  std::vector<ReportActivity> observations;  // periodic: handoff observations before its end
  int64_t unknown_time = 0;
  int64_t previous_count = 0;
};

Result<std::vector<ReportActivity>> AllActivities(ReadTxn& txn, ReadTxn::ActivityFilter f,
                                                  size_t max) {
  std::vector<ReportActivity> out;
  f.limit = 1000;
  while (true) {
    PC_ASSIGN_OR_RETURN(std::vector<ReportActivity> page, txn.ListReportActivities(f));
    for (ReportActivity& a : page) out.push_back(std::move(a));
    if (out.size() > max)
      return TooLarge(
                 "the report would select more than " + std::to_string(max) + " Activity Events", 0)
          .WithDetail("selected_activities", static_cast<int64_t>(out.size()));
    if (page.size() < static_cast<size_t>(f.limit)) return out;
    f.after = out.back().cursor;
  }
}

Result<Frozen> Freeze(ReadTxn& txn, const ReportRequest& req) {
  Frozen fz;
  PC_ASSIGN_OR_RETURN(std::optional<ReportProject> project, txn.FindReportProject(req.project_id));
  if (!project) return NoProject(req.project_id);
  fz.project = *project;
  std::string after;
  while (true) {
    PC_ASSIGN_OR_RETURN(std::vector<ReportWorkstream> page,
                        txn.ListReportWorkstreams(req.project_id, after, 500, true));
    for (ReportWorkstream& w : page) {
      if (w.catalog_state == "included") ++fz.total_included;
      if (w.catalog_state == "included" || req.include_archived) fz.matched.push_back(w);
    }
    if (page.size() < 500) break;
    after = page.back().scope_id;
  }
  if (fz.matched.size() > kMaxReportWorkstreams)
    return TooLarge("the report would select " + std::to_string(fz.matched.size()) +
                        " Workstreams; a report holds at most 100",
                    static_cast<int64_t>(fz.matched.size()));
  for (const ReportWorkstream& w : fz.matched) {
    PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, txn.FindScope(w.scope_id));
    fz.keys[w.scope_id] = scope ? scope->key : w.scope_id;
  }
  PC_ASSIGN_OR_RETURN(fz.cursor, txn.ReportActivityHighWatermark());
  ReadTxn::ActivityFilter f{req.project_id, 0, fz.cursor, std::nullopt, std::nullopt, {}, 0};
  if (!req.period) {
    PC_ASSIGN_OR_RETURN(fz.events, AllActivities(txn, f, kMaxReportActivities));
    for (const ReportActivity& a : fz.events)
      if (!a.PeriodTimeMs()) ++fz.unknown_time;
    return fz;
  }
  const ReportPeriod& p = *req.period;
  ReadTxn::ActivityFilter in = f;
  in.period_start_ms = p.start_ms;
  in.period_end_ms = p.end_ms;
  PC_ASSIGN_OR_RETURN(fz.events, AllActivities(txn, in, kMaxReportActivities));
  ReadTxn::ActivityFilter unknown = f;  // counted, never selected: no limit applies
  unknown.without_period_time = true;
  PC_ASSIGN_OR_RETURN(fz.unknown_time, txn.CountReportActivities(unknown));
  ReadTxn::ActivityFilter obs = f;
  obs.period_end_ms = p.end_ms;
  obs.sources = {"handoff_observation"};
  PC_ASSIGN_OR_RETURN(fz.observations, AllActivities(txn, obs, kMaxReportActivities));
  if (p.compare_to_previous_period) {
    ReadTxn::ActivityFilter prev = f;
    prev.period_start_ms = p.start_ms - (p.end_ms - p.start_ms);
    prev.period_end_ms = p.start_ms;
    PC_ASSIGN_OR_RETURN(fz.previous_count, txn.CountReportActivities(prev));
  }
  return fz;
}

// Each matched Workstream's handoff head, in scope_id order (an empty ref: none).
Result<std::vector<MemoryRef>> Heads(Store& store, const Frozen& fz) {
  std::vector<MemoryRef> out;
  PC_RETURN_IF_ERROR(store.Read([&](ReadTxn& txn) -> Status {
    out.clear();
    for (const ReportWorkstream& w : fz.matched) {
      PC_ASSIGN_OR_RETURN(std::optional<Handoff> h, LatestHandoff(txn, w.scope_id));
      out.push_back(h ? h->ref : MemoryRef{kHandoffFamily, "", 0});
    }
    return Status::Ok();
  }));
  return out;
}

// The last observation at or before `before` (exclusive when `strict`) of each scope's handoff.
std::map<std::string, MemoryRef> Observed(const Frozen& fz, int64_t before) {
  std::map<std::string, MemoryRef> out;
  for (const ReportActivity& a : fz.observations) {
    const std::optional<int64_t> t = a.PeriodTimeMs();
    std::optional<MemoryRef> ref = ObservedHandoff(a);
    if (!t || *t >= before || !ref || !a.scope_id) continue;
    auto it = out.find(*a.scope_id);
    if (it == out.end() || ref->revision >= it->second.revision) out[*a.scope_id] = *ref;
  }
  return out;
}

Result<std::optional<SelectedHandoff>> Read(ReadTxn& txn, const std::string& scope_key,
                                            const MemoryRef& ref, const std::string& basis,
                                            bool check) {
  if (ref.artifact_id.empty()) return std::optional<SelectedHandoff>();
  SelectedHandoff out;
  out.basis = basis;
  PC_ASSIGN_OR_RETURN(std::optional<Handoff> h, txn.FindHandoff(ref.artifact_id, ref.revision));
  if (!h)
    return Internal("handoff " + FormatMemoryRef(ref) +
                    " was selected and cannot be read: handoff_report_inconsistent");
  out.handoff = std::move(*h);
  if (check) {
    ContinueHandoffRequest exact{scope_key, HandoffSelection::kExact, std::nullopt, ref};
    PC_ASSIGN_OR_RETURN(HandoffResolution res, ResolveHandoff(txn, exact));
    out.checks = std::move(res.checks);
  }
  return std::optional<SelectedHandoff>(std::move(out));
}

int Rank(const WorkstreamReport& w) {
  if (!w.handoff) return 2;
  switch (w.handoff->handoff.content.disposition) {
    case HandoffDisposition::kBlocked:
      return 0;
    case HandoffDisposition::kContinuable:
      return 1;
    case HandoffDisposition::kComplete:
      return 3;
  }
  return 2;
}

void Count(ReportSummary& s, const std::optional<SelectedHandoff>& h) {
  if (!h) {
    ++s.no_handoff;
    return;
  }
  switch (h->handoff.content.disposition) {
    case HandoffDisposition::kBlocked:
      ++s.blocked;
      break;
    case HandoffDisposition::kContinuable:
      ++s.continuable;
      break;
    case HandoffDisposition::kComplete:
      ++s.complete;
      break;
  }
}

bool Unavailable(const std::optional<SelectedHandoff>& h) {
  if (!h || !h->checks) return false;
  for (const HandoffEvidenceCheck& c : *h->checks)
    if (!c.unavailable.empty()) return true;
  return false;
}

// The statuses of one Workstream, from its handoff and its events.
void Classify(WorkstreamReport& w) {
  int64_t comparable = 0, current = 0;
  for (const ActivityView& v : w.activities) {
    const std::optional<int64_t> t = v.event.PeriodTimeMs();
    if (t) ++comparable;
    if (v.event.time_basis == "current_only") ++current;
    if (t && w.handoff && *t > w.handoff->handoff.created_at_ms) ++w.activity_after_handoff;
  }
  const bool any = !w.activities.empty();
  if (!w.handoff) {
    w.relation = "no_handoff";
    w.activity_status = any ? "activity_without_handoff" : "none_observed";
    w.reporting_status = any ? "activity_without_handoff" : "no_handoff";
    return;
  }
  w.relation = comparable ? "comparable" : "not_comparable";
  if (!any)
    w.activity_status = "none_observed";
  else if (w.activity_after_handoff)
    w.activity_status = "activity_after_handoff";
  else if (current && current == static_cast<int64_t>(w.activities.size()))
    w.activity_status = "current_only";
  else if (!comparable)
    w.activity_status = "unknown";
  else
    w.activity_status = "none_observed";
  if (Unavailable(w.handoff))
    w.reporting_status = "evidence_unavailable";
  else if (!w.handoff->handoff.content.omissions.empty())
    w.reporting_status = "reported_with_omissions";
  else
    w.reporting_status = "reported";
}

}  // namespace

Result<HandoffReport> ReportService::Build(const ReportRequest& req) {
  PC_RETURN_IF_ERROR(CheckRequest(req));
  HandoffReport r;
  r.generated_at_ms = req.generated_at_ms.value_or(NowMillis());
  r.format = req.format;
  r.report_kind = req.period ? "periodic" : "handoff";
  r.include_archived = req.include_archived;
  r.include_evidence_checks = req.include_evidence_checks;

  Frozen fz;
  std::vector<MemoryRef> heads;
  for (int attempt = 0;; ++attempt) {
    PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(fz, Freeze(txn, req));
      return Status::Ok();
    }));
    if (req.period) break;  // a period's ends are observations, frozen with the log
    PC_ASSIGN_OR_RETURN(std::vector<MemoryRef> first, Heads(store_, fz));
    PC_ASSIGN_OR_RETURN(std::vector<MemoryRef> second, Heads(store_, fz));
    if (first == second) {
      heads = std::move(second);
      break;
    }
    if (attempt + 1 >= kReportSelectionAttempts)
      return Status(Code::kReportBusy,
                    "handoffs of this Project kept changing while the report froze them")
          .WithDetail("retry_after_seconds", int64_t{1});
  }
  r.project = fz.project;
  r.locale = req.locale.value_or(fz.project.default_locale);
  r.activity_cursor = fz.cursor;
  if (req.period) {
    r.period = *req.period;
    r.timezone = req.period->timezone.value_or(fz.project.timezone);
    r.period->timezone = r.timezone;
  } else {
    r.timezone = fz.project.timezone;
  }

  std::map<std::string, std::vector<ActivityView>> by_scope;
  for (ReportActivity& a : fz.events) {
    if (a.scope_id && fz.keys.count(*a.scope_id)) {
      by_scope[*a.scope_id].push_back({a, fz.keys[*a.scope_id]});
    } else {
      std::optional<std::string> key = a.scope_id;  // a Workstream this report does not select
      r.unassigned.push_back({std::move(a), std::move(key)});
    }
  }
  std::map<std::string, MemoryRef> end_obs, base_obs;
  if (req.period) {
    end_obs = Observed(fz, req.period->end_ms);
    base_obs = Observed(fz, req.period->start_ms);
  }
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    r.workstreams.clear();
    for (size_t i = 0; i < fz.matched.size(); ++i) {
      const ReportWorkstream& ws = fz.matched[i];
      WorkstreamReport w;
      w.workstream = ws;
      w.scope_key = fz.keys[ws.scope_id];
      w.activities = std::move(by_scope[ws.scope_id]);
      if (!req.period) {
        PC_ASSIGN_OR_RETURN(
            w.handoff, Read(txn, w.scope_key, heads[i], "latest", req.include_evidence_checks));
        w.end_basis = w.handoff ? "latest" : "no_handoff";
      } else {
        auto e = end_obs.find(ws.scope_id);
        if (e != end_obs.end()) {
          PC_ASSIGN_OR_RETURN(w.handoff, Read(txn, w.scope_key, e->second, "observed",
                                              req.include_evidence_checks));
        }
        w.end_basis = w.handoff ? "observed" : "end_unknown";
        auto b = base_obs.find(ws.scope_id);
        if (b != base_obs.end()) {
          PC_ASSIGN_OR_RETURN(w.baseline, Read(txn, w.scope_key, b->second, "observed", false));
        }
        w.baseline_basis = w.baseline ? "observed" : "baseline_unknown";
      }
      Classify(w);
      r.workstreams.push_back(std::move(w));
    }
    return Status::Ok();
  }));
  std::stable_sort(r.workstreams.begin(), r.workstreams.end(),
                   [](const WorkstreamReport& a, const WorkstreamReport& b) {
                     const int ra = Rank(a), rb = Rank(b);
                     if (ra != rb) return ra < rb;
                     if (a.workstream.title != b.workstream.title)
                       return a.workstream.title < b.workstream.title;
                     return a.workstream.scope_id < b.workstream.scope_id;
                   });

  ReportCoverage& c = r.coverage;
  c.total_included_workstreams = fz.total_included;
  c.catalog_matched_workstreams = static_cast<int64_t>(fz.matched.size());
  c.selected_workstreams = c.catalog_matched_workstreams;
  c.unassigned_activity_count = static_cast<int64_t>(r.unassigned.size());
  c.unknown_activity_time_count = fz.unknown_time;
  for (const WorkstreamReport& w : r.workstreams) {
    Count(r.summary, w.handoff);
    if (!w.handoff) ++c.missing_handoff_workstreams;
    if (w.handoff && !w.handoff->handoff.content.omissions.empty()) ++c.reported_with_omissions;
    if (w.handoff && !w.handoff->checks) ++c.unchecked_evidence_workstreams;
    if (Unavailable(w.handoff)) ++c.unavailable_evidence_workstreams;
    if (w.activity_after_handoff) ++c.activity_after_handoff_workstreams;
    if (w.activity_status == "activity_without_handoff") ++c.activity_without_handoff_workstreams;
  }
  if (req.period && req.period->compare_to_previous_period) {
    PreviousPeriod prev;
    prev.end_ms = req.period->start_ms;
    prev.start_ms = req.period->start_ms - (req.period->end_ms - req.period->start_ms);
    prev.activity_count = fz.previous_count;
    for (const WorkstreamReport& w : r.workstreams) Count(prev.summary, w.baseline);
    r.previous = prev;
  }
  return r;
}

}  // namespace pc
