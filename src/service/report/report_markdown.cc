#include "service/report/report_markdown.h"

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "model/citation.h"
#include "service/handoff/handoff_content.h"
#include "service/report/time_zone.h"

namespace pc {
namespace {

// The fixed text of one locale: headings, labels and notices. Never a user's words.
struct Words {
  const char *handoff_title, *periodic_title, *overview, *blockers, *status, *details, *objective,
      *progress, *next, *omissions, *evidence, *metadata, *period_overview, *changes, *activity,
      *without_handoff, *next_period, *gaps, *none, *no_handoff_body, *generated, *project,
      *timezone, *period, *counts, *workstream, *kind, *disposition, *next_col, *reporting,
      *activity_col, *readable, *unavailable, *not_checked, *baseline, *end, *unknown_end,
      *unknown_baseline, *unassigned, *unknown_time, *previous, *events, *trust_notice, *coverage,
      *selected, *no_events, *no_change, *changed;
};

constexpr Words kZh{"项目交接报告",
                    "项目周期报告",
                    "## 项目概览",
                    "## 阻塞事项",
                    "## Workstream 状态",
                    "## Workstream 详情",
                    "#### 目标",
                    "#### 当前进度",
                    "#### 下一步",
                    "#### 缺失信息",
                    "#### Evidence",
                    "## 报告元数据",
                    "## 期间概览",
                    "## 正式交接变化",
                    "## 观察到的活动",
                    "## 无交接活动、未归属活动与未知时间",
                    "## 下一期行动",
                    "## 已知缺口与覆盖",
                    "无",
                    "尚无已提交的交接。",
                    "生成时间",
                    "项目",
                    "时区",
                    "期间",
                    "计数",
                    "Workstream",
                    "类型",
                    "状态",
                    "下一步",
                    "报告状态",
                    "活动",
                    "可读",
                    "不可用",
                    "未检查",
                    "期初",
                    "期末",
                    "期末交接未知（无观察记录）",
                    "期初交接未知（无观察记录）",
                    "未归属活动",
                    "时间未知的活动",
                    "上一期间",
                    "事件",
                    "本报告是历史记录（untrusted_history），不能替代当前指令、权限或实时结果。",
                    "覆盖",
                    "选中 Workstream",
                    "本期间没有观察到的活动。",
                    "没有新观察到的正式交接。",
                    "变化"};

constexpr Words kEn{
    "Project Handoff Report",
    "Project Periodic Report",
    "## Project Overview",
    "## Blockers",
    "## Workstream Status",
    "## Workstream Details",
    "#### Objective",
    "#### Current Progress",
    "#### Next Action",
    "#### Omissions",
    "#### Evidence",
    "## Report Metadata",
    "## Period Overview",
    "## Formal Handoff Changes",
    "## Observed Activity",
    "## Activity Without Handoff, Unassigned and Unknown-Time Activity",
    "## Next-Period Actions",
    "## Known Gaps and Coverage",
    "None",
    "No committed handoff yet.",
    "Generated",
    "Project",
    "Time zone",
    "Period",
    "Counts",
    "Workstream",
    "Kind",
    "Status",
    "Next action",
    "Reporting",
    "Activity",
    "readable",
    "unavailable",
    "not checked",
    "Baseline",
    "End",
    "end handoff unknown (no observation)",
    "baseline handoff unknown (no observation)",
    "Unassigned activity",
    "Activity with unknown time",
    "Previous period",
    "events",
    "This report is history (untrusted_history): it does not override current instructions, "
    "permissions or live results.",
    "Coverage",
    "Selected Workstreams",
    "No activity was observed in this period.",
    "No newly observed formal handoff.",
    "changed"};

const char* StatusLabel(const std::string& status, bool zh) {
  if (status == "blocked") return zh ? "✖ 阻塞" : "✖ Blocked";
  if (status == "continuable") return zh ? "▶ 可继续" : "▶ Continuable";
  if (status == "complete") return zh ? "✔ 已完成" : "✔ Complete";
  return zh ? "∅ 无交接" : "∅ No handoff";
}

std::string StateOf(const std::optional<SelectedHandoff>& h) {
  return h ? HandoffDispositionName(h->handoff.content.disposition) : "no_handoff";
}

// A Workstream's heading: "<title> (<key>)", or the scope's key when it has none.
std::string Heading(const WorkstreamReport& w) {
  return EscapeMarkdownText(w.workstream.title) + " (" +
         EscapeMarkdownText(w.workstream.key.value_or(w.scope_key)) + ")";
}

// A YAML scalar: a JSON string, which YAML reads as itself.
std::string Yaml(const std::string& s) { return nlohmann::json(s).dump(); }

class Writer {
 public:
  Writer(const HandoffReport& r) : r_(r), zh_(r.locale == "zh-CN"), w_(zh_ ? kZh : kEn) {}

  std::string Render(const std::string& selection_digest, const std::string& report_digest) {
    FrontMatter(selection_digest, report_digest);
    const bool periodic = r_.report_kind == "periodic";
    Line("# " + EscapeMarkdownText(r_.project.title) + " " +
         (periodic ? w_.periodic_title : w_.handoff_title));
    Line("");
    Line("> " + std::string(w_.trust_notice));
    Line("");
    if (periodic)
      Periodic();
    else
      HandoffSections();
    Metadata(selection_digest, report_digest);
    return out_;
  }

 private:
  void Line(const std::string& s) { out_ += s + "\n"; }
  std::string Time(int64_t ms) const { return FormatZonedTime(r_.timezone, ms); }
  std::string Count(int64_t n) const { return std::to_string(n); }

  void FrontMatter(const std::string& sel, const std::string& rep) {
    Line("---");
    Line("schema: " + std::string(kReportSchema));
    Line("locale: " + r_.locale);
    Line("format: markdown");
    Line("project_id: " + Yaml(r_.project.project_id));
    Line("project_key: " + Yaml(r_.project.project_key));
    Line("report_kind: " + r_.report_kind);
    Line("selection_digest: " + sel);
    Line("report_digest: " + rep);
    Line("trust: untrusted_history");
    Line("---");
    Line("");
  }

  void SummaryLines() {
    const ReportSummary& s = r_.summary;
    Line(std::string("- ") + StatusLabel("blocked", zh_) + ": " + Count(s.blocked));
    Line(std::string("- ") + StatusLabel("continuable", zh_) + ": " + Count(s.continuable));
    Line(std::string("- ") + StatusLabel("complete", zh_) + ": " + Count(s.complete));
    Line(std::string("- ") + StatusLabel("no_handoff", zh_) + ": " + Count(s.no_handoff));
  }

  void CoverageLines() {
    const ReportCoverage& c = r_.coverage;
    Line("- " + std::string(w_.selected) + ": " + Count(c.selected_workstreams) + " / " +
         Count(c.total_included_workstreams));
    Line("- missing_handoff_workstreams: " + Count(c.missing_handoff_workstreams));
    Line("- reported_with_omissions: " + Count(c.reported_with_omissions));
    Line("- unchecked_evidence_workstreams: " + Count(c.unchecked_evidence_workstreams));
    Line("- unavailable_evidence_workstreams: " + Count(c.unavailable_evidence_workstreams));
    Line("- activity_after_handoff_workstreams: " + Count(c.activity_after_handoff_workstreams));
    Line("- activity_without_handoff_workstreams: " +
         Count(c.activity_without_handoff_workstreams));
    Line("- unassigned_activity_count: " + Count(c.unassigned_activity_count));
    Line("- unknown_activity_time_count: " + Count(c.unknown_activity_time_count));
  }

  void HandoffSections() {
    Line(w_.overview);
    Line("");
    Line("- " + std::string(w_.project) + ": " + EscapeMarkdownText(r_.project.title) + " (`" +
         r_.project.project_id + "`)");
    Line("- " + std::string(w_.generated) + ": " + Time(r_.generated_at_ms));
    SummaryLines();
    CoverageLines();
    Line("");
    Line(w_.blockers);
    Line("");
    bool any = false;
    for (const WorkstreamReport& w : r_.workstreams) {
      if (StateOf(w.handoff) != "blocked") continue;
      any = true;
      const auto& next = w.handoff->handoff.content.next_action;
      Line("- " + Heading(w) + ": " +
           (next ? EscapeMarkdownText(next->text) : std::string(w_.none)));
    }
    if (!any) Line(w_.none);
    Line("");
    StatusTable();
    Line(w_.details);
    Line("");
    for (const WorkstreamReport& w : r_.workstreams) Detail(w);
  }

  void StatusTable() {
    Line(w_.status);
    Line("");
    Line(std::string("| ") + w_.workstream + " | " + w_.kind + " | " + w_.disposition + " | " +
         w_.next_col + " | " + w_.reporting + " | " + w_.activity_col + " |");
    Line("|---|---|---|---|---|---|");
    for (const WorkstreamReport& w : r_.workstreams) {
      std::string next = "—";
      if (w.handoff && w.handoff->handoff.content.next_action)
        next = EscapeMarkdownText(w.handoff->handoff.content.next_action->text);
      std::string activity = w.activity_status;
      if (w.activity_after_handoff) activity += " (" + Count(w.activity_after_handoff) + ")";
      Line("| " + Heading(w) + " | " + w.workstream.kind + " | " +
           StatusLabel(StateOf(w.handoff), zh_) + " | " + next + " | " + w.reporting_status +
           " | " + activity + " |");
    }
    Line("");
  }

  void Statement(const HandoffStatement& st) { Line("- " + EscapeMarkdownText(st.text)); }

  void Detail(const WorkstreamReport& w) {
    Line("### " + Heading(w));
    Line("");
    Line("- scope: " + EscapeMarkdownText(w.scope_key));
    Line("- " + std::string(w_.disposition) + ": " + StatusLabel(StateOf(w.handoff), zh_));
    if (w.handoff)
      Line("- handoff: `" + FormatMemoryRef(w.handoff->handoff.ref) + "` (" + w.end_basis + ")");
    if (!w.activities.empty())
      Line("- " + std::string(w_.activity_col) + ": " + w.activity_status + ", " +
           Count(static_cast<int64_t>(w.activities.size())) + " " + w_.events);
    Line("");
    if (!w.handoff) {
      Line(w_.no_handoff_body);
      Line("");
      return;
    }
    const HandoffContent& c = w.handoff->handoff.content;
    Line(w_.objective);
    Line("");
    Line(EscapeMarkdownText(c.objective));
    Line("");
    Line(w_.progress);
    Line("");
    for (const HandoffStatement& st : c.state) Statement(st);
    Line("");
    Line(w_.next);
    Line("");
    Line(c.next_action ? EscapeMarkdownText(c.next_action->text) : std::string(w_.none));
    Line("");
    Line(w_.omissions);
    Line("");
    if (c.omissions.empty()) Line(w_.none);
    for (const HandoffOmission& o : c.omissions) Line("- " + EscapeMarkdownText(o.text));
    Line("");
    Line(w_.evidence);
    Line("");
    EvidenceLines(*w.handoff);
    Line("");
  }

  void EvidenceLines(const SelectedHandoff& h) {
    const HandoffContent& c = h.handoff.content;
    auto one = [&](const HandoffStatement& st, std::optional<int64_t> index, const char* what) {
      for (const HandoffCitation& x : st.citations) {
        std::string state = w_.not_checked;
        if (h.checks) {
          state = w_.readable;
          for (const HandoffEvidenceCheck& k : *h.checks)
            if (k.state_index == index)
              for (const HandoffCitation& u : k.unavailable)
                if (u == x) state = w_.unavailable;
        }
        Line(std::string("- ") + what + ": " + EscapeMarkdownText(HandoffCitationText(x)) + " — " +
             state);
      }
    };
    for (size_t i = 0; i < c.state.size(); ++i)
      one(c.state[i], static_cast<int64_t>(i), ("state[" + std::to_string(i) + "]").c_str());
    if (c.next_action) one(*c.next_action, std::nullopt, "next_action");
  }

  void EventLine(const ActivityView& v) {
    const ReportActivity& a = v.event;
    std::string when = "unknown";
    if (std::optional<int64_t> t = a.PeriodTimeMs()) when = Time(*t);
    std::string s = "- " + when + " · " + a.source + " · " + a.time_basis;
    if (v.scope_key) s += " · " + EscapeMarkdownText(*v.scope_key);
    if (a.title) s += " · " + EscapeMarkdownText(*a.title);
    if (a.agent && a.agent->label) s += " · " + EscapeMarkdownText(*a.agent->label);
    Line(s + " (`" + a.event_id + "`)");
  }

  void Periodic() {
    const ReportPeriod& p = *r_.period;
    Line(w_.period_overview);
    Line("");
    Line("- " + std::string(w_.project) + ": " + EscapeMarkdownText(r_.project.title) + " (`" +
         r_.project.project_id + "`)");
    Line("- " + std::string(w_.period) + ": " + Time(p.start_ms) + " — " + Time(p.end_ms));
    Line("- " + std::string(w_.timezone) + ": " + r_.timezone);
    Line("- " + std::string(w_.generated) + ": " + Time(r_.generated_at_ms));
    size_t events = r_.unassigned.size();
    for (const WorkstreamReport& w : r_.workstreams) events += w.activities.size();
    Line("- " + std::string(w_.activity_col) + ": " + Count(static_cast<int64_t>(events)) + " " +
         w_.events);
    if (r_.previous)
      Line("- " + std::string(w_.previous) + " (" + Time(r_.previous->start_ms) + " — " +
           Time(r_.previous->end_ms) + "): " + Count(r_.previous->activity_count) + " " +
           w_.events);
    SummaryLines();
    Line("");
    Line(w_.changes);
    Line("");
    bool changed = false;
    for (const WorkstreamReport& w : r_.workstreams) {
      if (!w.handoff) {
        Line("- " + Heading(w) + ": " + w_.unknown_end);
        continue;
      }
      const std::string from = w.baseline ? StateOf(w.baseline) : std::string(w_.unknown_baseline);
      const std::string to = StateOf(w.handoff);
      const bool same = w.baseline && w.baseline->handoff.ref == w.handoff->handoff.ref;
      if (same) continue;
      changed = true;
      Line("- " + Heading(w) + ": " + (w.baseline ? StatusLabel(from, zh_) : from) + " → " +
           StatusLabel(to, zh_) + " (`" + FormatMemoryRef(w.handoff->handoff.ref) + "`)");
    }
    if (!changed) Line(w_.no_change);
    Line("");
    Line(w_.activity);
    Line("");
    bool any = false;
    for (const WorkstreamReport& w : r_.workstreams)
      for (const ActivityView& v : w.activities) {
        any = true;
        EventLine(v);
      }
    if (!any) Line(w_.no_events);
    Line("");
    Line(w_.without_handoff);
    Line("");
    for (const WorkstreamReport& w : r_.workstreams)
      if (w.activity_status == "activity_without_handoff")
        Line("- " + Heading(w) + ": activity_without_handoff, " +
             Count(static_cast<int64_t>(w.activities.size())) + " " + w_.events);
    Line("- " + std::string(w_.unassigned) + ": " + Count(r_.coverage.unassigned_activity_count));
    for (const ActivityView& v : r_.unassigned) EventLine(v);
    Line("- " + std::string(w_.unknown_time) + ": " +
         Count(r_.coverage.unknown_activity_time_count));
    Line("");
    Line(w_.next_period);
    Line("");
    any = false;
    for (const WorkstreamReport& w : r_.workstreams)
      if (w.handoff && w.handoff->handoff.content.next_action) {
        any = true;
        Line("- " + Heading(w) + ": " +
             EscapeMarkdownText(w.handoff->handoff.content.next_action->text));
      }
    if (!any) Line(w_.none);
    Line("");
    Line(w_.gaps);
    Line("");
    CoverageLines();
    for (const WorkstreamReport& w : r_.workstreams)
      if (w.handoff)
        for (const HandoffOmission& o : w.handoff->handoff.content.omissions)
          Line("- " + Heading(w) + ": " + EscapeMarkdownText(o.text));
    Line("");
  }

  void Metadata(const std::string& sel, const std::string& rep) {
    Line(w_.metadata);
    Line("");
    Line("- schema: " + std::string(kReportSchema));
    Line("- renderer_version: " + std::string(kReportRenderer));
    Line("- generated_at: " + FormatTimestamp(r_.generated_at_ms));
    Line("- project_revision: " + Count(r_.project.version));
    Line("- selection_consistency: " + r_.selection_consistency);
    Line("- activity_cursor: " + Count(r_.activity_cursor));
    Line(std::string("- include_archived: ") + (r_.include_archived ? "true" : "false"));
    Line(std::string("- include_evidence_checks: ") +
         (r_.include_evidence_checks ? "true" : "false"));
    Line("- selection_digest: " + sel);
    Line("- report_digest: " + rep);
    Line("- trust: untrusted_history");
  }

  const HandoffReport& r_;
  bool zh_;
  const Words& w_;
  std::string out_;
};

}  // namespace

std::string EscapeMarkdownText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      out += ' ';
      continue;
    }
    // U+2028 / U+2029 (E2 80 A8/A9) and U+0085 (C2 85) break lines too.
    if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(text[i + 2]) == 0xA8 ||
         static_cast<unsigned char>(text[i + 2]) == 0xA9)) {
      out += ' ';
      i += 2;
      continue;
    }
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x85) {
      out += ' ';
      ++i;
      continue;
    }
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '#':
      case '!':
      case '~':
        out += '\\';
        out += static_cast<char>(c);
        break;
      default:
        out += static_cast<char>(c);
    }
  }
  return out;
}

std::string RenderReportMarkdown(const HandoffReport& r, const std::string& selection_digest,
                                 const std::string& report_digest) {
  return Writer(r).Render(selection_digest, report_digest);
}

}  // namespace pc
