#include "api/report_codec.h"

#include <algorithm>

#include "api/handoff_codec.h"
#include "api/review_codec.h"
#include "common/canonical_json.h"
#include "common/clock.h"
#include "common/utf8.h"
#include "service/report/report_markdown.h"

namespace pc {
namespace {

Json OptTime(const std::optional<int64_t>& ms) { return ms ? Json(FormatTimestamp(*ms)) : Json(); }

// RFC 3339 UTC with microseconds, as a report's digests normalize every timestamp.
std::string Micros(int64_t ms) {
  std::string t = FormatTimestamp(ms);  // …SS.mmmZ
  t.insert(t.size() - 1, "000");
  return t;
}

Json ChecksJson(const std::optional<SelectedHandoff>& h) {
  if (!h) return Json();
  if (!h->checks) return "not_checked";
  Json out = Json::array();
  for (const HandoffEvidenceCheck& c : *h->checks) {
    Json unavailable = Json::array();
    for (const HandoffCitation& x : c.unavailable) unavailable.push_back(CitationJson(x));
    out.push_back(Json{{"state_index", c.state_index ? Json(*c.state_index) : Json()},
                       {"unavailable", unavailable}});
  }
  return out;
}

Json HandoffRefJson(const std::optional<SelectedHandoff>& h) {
  return h ? ToJson(h->handoff.ref) : Json();
}

// Timestamps of the canonical model (microseconds, Z).
Json EventJson(const ActivityView& v) {
  Json j = ActivityJson(v);
  j["observed_at"] = Micros(v.event.observed_at_ms);
  j["occurred_at"] = v.event.occurred_at_ms ? Json(Micros(*v.event.occurred_at_ms)) : Json();
  return j;
}

Json Events(const std::vector<ActivityView>& events) {
  Json out = Json::array();
  for (const ActivityView& v : events) out.push_back(EventJson(v));
  return out;
}

Json SummaryJson(const ReportSummary& s) {
  return Json{{"continuable_count", s.continuable},
              {"blocked_count", s.blocked},
              {"complete_count", s.complete},
              {"no_handoff_count", s.no_handoff}};
}

Json SelectionEntry(const WorkstreamReport& w, const std::optional<SelectedHandoff>& h,
                    const std::string& basis) {
  return Json{{"scope_id", w.scope_key},
              {"workstream_revision", w.workstream.version},
              {"status", h ? "selected" : "no_handoff"},
              {"handoff_ref", HandoffRefJson(h)},
              {"temporal_basis", basis}};
}

// Every string of `j` (member names too) in NFC, as the digests hash text.
bool Ascii(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

Result<Json> Nfc(const Json& j) {
  if (j.is_string()) {
    const std::string& text = j.get_ref<const std::string&>();
    if (Ascii(text)) return j;  // NFC already
    PC_ASSIGN_OR_RETURN(std::string s, NormalizeNfc(text));
    return Json(std::move(s));
  }
  if (j.is_array()) {
    Json out = Json::array();
    for (const Json& x : j) {
      PC_ASSIGN_OR_RETURN(Json y, Nfc(x));
      out.push_back(std::move(y));
    }
    return out;
  }
  if (j.is_object()) {
    Json out = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::string k = it.key();
      if (!Ascii(k)) {
        PC_ASSIGN_OR_RETURN(k, NormalizeNfc(k));
      }
      PC_ASSIGN_OR_RETURN(Json y, Nfc(it.value()));
      out[k] = std::move(y);
    }
    return out;
  }
  return j;
}

Result<std::string> Digest(const Json& j) {
  PC_ASSIGN_OR_RETURN(Json n, Nfc(j));
  return CanonicalJsonDigest(n);
}

}  // namespace

Json ProjectJson(const ReportProject& p) {
  return Json{{"schema", kProjectSchema},
              {"project_id", p.project_id},
              {"project_key", p.project_key},
              {"title", p.title},
              {"description", OptJson(p.description)},
              {"default_locale", p.default_locale},
              {"timezone", p.timezone},
              {"catalog_state", p.catalog_state},
              {"version", p.version}};
}

Json WorkstreamJson(const ReportWorkstream& w, const std::string& scope_key) {
  Json refs = Json::array();
  for (const ReportExternalRef& r : w.external_refs) refs.push_back(ExternalRefJson(r));
  return Json{{"schema", kWorkstreamSchema},
              {"scope_id", scope_key},
              {"project_id", w.project_id},
              {"key", OptJson(w.key)},
              {"title", w.title},
              {"kind", w.kind},
              {"catalog_state", w.catalog_state},
              {"external_refs", refs},
              {"labels", w.labels},
              {"version", w.version}};
}

Json ExternalRefJson(const ReportExternalRef& r) {
  return Json{{"kind", r.kind},
              {"provider", r.provider},
              {"external_id", r.external_id},
              {"url", OptJson(r.url)}};
}

Json BindingJson(const WorkspaceBinding& b) {
  const ReportRepositoryRef& r = b.repository_ref;
  return Json{{"schema", kWorkspaceBindingSchema},
              {"workspace_instance_id", b.workspace_instance_id},
              {"project_id", b.project_id},
              {"repository_ref",
               {{"provider", r.provider},
                {"repository_id", OptJson(r.repository_id)},
                {"normalized_remote", OptJson(r.normalized_remote)},
                {"subpath", OptJson(r.subpath)}}},
              {"state", b.state},
              {"confirmed_at", FormatTimestamp(b.confirmed_at_ms)},
              {"version", b.version}};
}

Json ActivityJson(const ActivityView& v) {
  const ReportActivity& a = v.event;
  Json refs = Json::array();
  for (const ReportExternalRef& r : a.evidence_refs) refs.push_back(ExternalRefJson(r));
  Json agent, vcs;
  if (a.agent)
    agent = Json{{"provider", OptJson(a.agent->provider)}, {"label", OptJson(a.agent->label)}};
  if (a.vcs_context)
    vcs = Json{{"branch", OptJson(a.vcs_context->branch)},
               {"head_revision", OptJson(a.vcs_context->head_revision)}};
  return Json{{"schema", kReportActivitySchema},
              {"event_id", a.event_id},
              {"project_id", a.project_id},
              {"scope_id", OptJson(v.scope_key)},
              {"source", a.source},
              {"source_event_id", a.source_event_id},
              {"source_ref", a.source_ref ? ExternalRefJson(*a.source_ref) : Json()},
              {"occurred_at", OptTime(a.occurred_at_ms)},
              {"observed_at", FormatTimestamp(a.observed_at_ms)},
              {"time_basis", a.time_basis},
              {"title", OptJson(a.title)},
              {"summary", OptJson(a.summary)},
              {"agent", agent},
              {"session_id", OptJson(a.session_id)},
              {"vcs_context", vcs},
              {"evidence_refs", refs},
              {"trust", "untrusted_observation"}};
}

Result<RenderedReport> RenderReport(const HandoffReport& r) {
  const bool periodic = r.report_kind == "periodic";
  Json filters{{"include_archived", r.include_archived},
               {"include_evidence_checks", r.include_evidence_checks}};
  Json period;
  if (r.period)
    period = Json{{"start", Micros(r.period->start_ms)},
                  {"end", Micros(r.period->end_ms)},
                  {"timezone", r.timezone},
                  {"compare_to_previous_period", r.period->compare_to_previous_period}};
  Json end = Json::array(), baseline = periodic ? Json::array() : Json();
  Json activity_selection = Json::array();
  Json workstreams = Json::array();
  for (const WorkstreamReport& w : r.workstreams) {
    end.push_back(SelectionEntry(w, w.handoff, w.end_basis));
    if (periodic) baseline.push_back(SelectionEntry(w, w.baseline, w.baseline_basis));
    for (const ActivityView& v : w.activities) activity_selection.push_back(v.event.event_id);
    Json base;
    if (periodic && w.baseline)
      base = Json{{"handoff_ref", HandoffRefJson(w.baseline)},
                  {"content", ContentJson(w.baseline->handoff.content, true)}};
    workstreams.push_back(
        Json{{"workstream", WorkstreamJson(w.workstream, w.scope_key)},
             {"handoff_ref", HandoffRefJson(w.handoff)},
             {"content", w.handoff ? ContentJson(w.handoff->handoff.content, true) : Json()},
             {"evidence_checks", ChecksJson(w.handoff)},
             {"activities", Events(w.activities)},
             {"activity_after_handoff_count", w.activity_after_handoff},
             {"reporting_status", w.reporting_status},
             {"activity_status", w.activity_status},
             {"handoff_activity_relation", w.relation},
             {"baseline", base}});
  }
  for (const ActivityView& v : r.unassigned) activity_selection.push_back(v.event.event_id);
  const ReportCoverage& c = r.coverage;
  Json coverage{{"total_included_workstreams", c.total_included_workstreams},
                {"catalog_matched_workstreams", c.catalog_matched_workstreams},
                {"selected_workstreams", c.selected_workstreams},
                {"missing_handoff_workstreams", c.missing_handoff_workstreams},
                {"reported_with_omissions", c.reported_with_omissions},
                {"unchecked_evidence_workstreams", c.unchecked_evidence_workstreams},
                {"unavailable_evidence_workstreams", c.unavailable_evidence_workstreams},
                {"activity_after_handoff_workstreams", c.activity_after_handoff_workstreams},
                {"activity_without_handoff_workstreams", c.activity_without_handoff_workstreams},
                {"unassigned_activity_count", c.unassigned_activity_count},
                {"unknown_activity_time_count", c.unknown_activity_time_count},
                {"unavailable_activity_sources", Json::array()}};
  Json changes;
  if (r.previous)
    changes = Json{{"previous_period",
                    {{"start", Micros(r.previous->start_ms)},
                     {"end", Micros(r.previous->end_ms)},
                     {"activity_count", r.previous->activity_count},
                     {"summary", SummaryJson(r.previous->summary)}}},
                   {"activity_count", static_cast<int64_t>(activity_selection.size())},
                   {"summary", SummaryJson(r.summary)}};

  RenderedReport out;
  Json envelope{{"schema", kReportSchema},
                {"project_id", r.project.project_id},
                {"project_revision", r.project.version},
                {"normalized_filters", filters},
                {"normalized_period", period},
                {"selection_consistency", r.selection_consistency},
                {"baseline_selection", baseline},
                {"end_selection", end},
                {"activity_cursor", r.activity_cursor},
                {"activity_selection", activity_selection}};
  PC_ASSIGN_OR_RETURN(out.selection_digest, Digest(envelope));
  Json report{{"schema", kReportSchema},
              {"trust", "untrusted_history"},
              {"locale", r.locale},
              {"format", r.format},
              {"report_kind", r.report_kind},
              {"generated_at", Micros(r.generated_at_ms)},
              {"renderer_version", kReportRenderer},
              {"project", ProjectJson(r.project)},
              {"project_revision", r.project.version},
              {"filters", filters},
              {"period", period},
              {"timezone", r.timezone},
              {"selection_consistency", r.selection_consistency},
              {"baseline_selection", baseline},
              {"end_selection", end},
              {"activity_cursor", r.activity_cursor},
              {"activity_selection", activity_selection},
              {"selection_digest", out.selection_digest},
              {"coverage", coverage},
              {"summary", SummaryJson(r.summary)},
              {"changes", changes},
              {"unassigned_activity", Events(r.unassigned)},
              {"generated_summary", Json()},
              {"workstreams", workstreams}};
  PC_ASSIGN_OR_RETURN(out.report_digest, Digest(report));
  report["report_digest"] = out.report_digest;
  const size_t json_bytes = report.dump().size();
  if (r.format == "markdown")
    out.markdown = RenderReportMarkdown(r, out.selection_digest, out.report_digest);
  const size_t bytes = std::max(json_bytes, out.markdown.size());
  if (bytes > kMaxReportBytes)
    return Status(Code::kReportTooLarge,
                  "the report is " + std::to_string(bytes) +
                      " bytes, over its 10 MiB limit: filter by kind or archive state, skip "
                      "evidence checks, or report fewer Workstreams")
        .WithDetail("estimated_bytes", static_cast<int64_t>(bytes))
        .WithDetail("selected_workstreams", r.coverage.selected_workstreams);
  out.report = std::move(report);
  return out;
}

}  // namespace pc
