// The Handoff Report commands (upstream RFC 0082, docs/handoff-reports.md):
//   handoff-report show PROJECT            the report (Markdown, or --format json)
//   handoff-report project create | list | show | update
//   handoff-report workstream register | list | update
//   handoff-report workspace show | attach | detach
//   handoff-report activity record | list | purge
// An update sends the whole descriptor (a JSON file, or - for standard input: what `show --json`
// printed, edited) with --expected-version, the version it was read at.
#include <nlohmann/json.hpp>

#include "cli/command_table.h"
#include "wire/json.h"

namespace pc {
namespace {

std::string Text(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string FormatProject(const Json& p) {
  std::string out = Text(p, "project_id") + "  " + Text(p, "project_key") + "  v" +
                    std::to_string(p.value("version", 0)) + "  " + Text(p, "catalog_state") +
                    "\n  " + Text(p, "title") + "  (" + Text(p, "default_locale") + ", " +
                    Text(p, "timezone") + ")\n";
  if (!Text(p, "description").empty()) out += "  " + Text(p, "description") + "\n";
  return out;
}

std::string FormatWorkstream(const Json& w) {
  std::string out = Text(w, "scope_id") + (Text(w, "key").empty() ? "" : "  " + Text(w, "key")) +
                    "  v" + std::to_string(w.value("version", 0)) + "  " + Text(w, "kind") + "  " +
                    Text(w, "catalog_state") + "\n  " + Text(w, "title") + "\n";
  std::string labels;
  for (const Json& l : w.value("labels", Json::array())) labels += " " + l.get<std::string>();
  if (!labels.empty()) out += "  labels:" + labels + "\n";
  for (const Json& r : w.value("external_refs", Json::array()))
    out += "  " + Text(r, "kind") + " " + Text(r, "provider") + ":" + Text(r, "external_id") +
           (Text(r, "url").empty() ? "" : "  " + Text(r, "url")) + "\n";
  return out;
}

std::string FormatPage(const Json& j, std::string (*one)(const Json&), const char* none) {
  std::string out;
  const Json& items = j.value("items", Json::array());
  if (items.empty()) out = std::string(none) + "\n";
  for (const Json& x : items) out += one(x);
  if (j.contains("next_cursor") && j["next_cursor"].is_string())
    out += "more: --cursor " + j["next_cursor"].get<std::string>() + "\n";
  return out;
}

std::string FormatProjects(const Json& j) {
  return FormatPage(j, FormatProject, "no Projects (create one: handoff-report project create)");
}
std::string FormatWorkstreams(const Json& j) {
  return FormatPage(j, FormatWorkstream,
                    "no Workstreams (register a scope: handoff-report workstream register)");
}

OptionSpec ProjectId() {
  return Opt("--project", "the Project's id (prj_…)", &Opts::report_project)
      .Required()
      .To("project_id");
}

OptionSpec DescriptorVersion() {
  return Opt("--expected-version", "the version the descriptor was read at",
             &Opts::expected_version)
      .Required()
      .To("expected_version");
}

Status SkipChecks(const Opts& o, const OptionSpec&, Request& request) {
  if (o.skip_evidence_checks) request.Set("include_evidence_checks", false);
  return Status::Ok();
}

// attach's expected_version: the version, or null (expect no binding) when not given.
Status ExpectedOrNull(const Opts& o, const OptionSpec&, Request& request) {
  request.Set("expected_version", o.expected_version ? Json(*o.expected_version) : Json());
  return Status::Ok();
}

std::vector<OptionSpec> Paging(const char* all_help) {
  return {Opt("--all", all_help, &Opts::include_inactive).To("include_archived"),
          Opt("--limit", "items per page (1-100, default 50)", &Opts::limit)
              .To("limit", Send::kIfPositive),
          Opt("--cursor", "next_cursor from the previous page", &Opts::cursor).To("cursor")};
}

// The report: its Markdown as it came, or (--format json) the canonical JSON.
std::string FormatReport(const Json& j) {
  if (j.is_string()) return j.get<std::string>();
  return j.contains("report") ? j["report"].dump(2) + "\n" : j.dump(2) + "\n";
}

std::string FormatBinding(const Json& b) {
  const Json& r = b.value("repository_ref", Json::object());
  return Text(b, "workspace_instance_id") + "  v" + std::to_string(b.value("version", 0)) + "  " +
         Text(b, "state") + "  " + Text(b, "project_id") + "\n  " + Text(r, "provider") + " " +
         Text(r, "normalized_remote") +
         (Text(r, "subpath").empty() ? "" : " " + Text(r, "subpath")) + "  confirmed " +
         Text(b, "confirmed_at") + "\n";
}

std::string FormatActivity(const Json& a) {
  const Json& e = a.contains("event") ? a["event"] : a;
  std::string when = Text(e, "occurred_at").empty() ? Text(e, "observed_at") + " (observed)"
                                                    : Text(e, "occurred_at");
  return Text(e, "event_id") + "  " + when + "  " + Text(e, "source") + "  " +
         Text(e, "time_basis") + (Text(e, "scope_id").empty() ? "" : "  " + Text(e, "scope_id")) +
         "\n  " + Text(e, "source_event_id") +
         (Text(e, "title").empty() ? "" : "  " + Text(e, "title")) + "\n";
}

std::string FormatActivities(const Json& j) {
  std::string out;
  const Json& items = j.value("items", Json::array());
  if (items.empty()) out = "no Activity Events\n";
  for (const Json& x : items) out += FormatActivity(x);
  if (j.contains("next_cursor") && j["next_cursor"].is_number())
    out += "more: --after " + std::to_string(j["next_cursor"].get<int64_t>()) + " --through " +
           std::to_string(j.value("high_watermark", int64_t{0})) + "\n";
  return out;
}

std::string FormatPurged(const Json& j) {
  return "deleted " + std::to_string(j.value("deleted_count", int64_t{0})) + " Activity Events\n";
}

}  // namespace

const std::vector<Row>& ReportRows() {
  static const std::vector<Row> rows = {
      {"handoff-report",
       "the Handoff Report catalog: Projects and their Workstreams "
       "(docs/handoff-reports.md)"},
      {"handoff-report show",
       "a Project's report: each Workstream's latest handoff, evidence checked, and the activity "
       "hosts recorded; with --from and --to, a period's",
       {Opt("project_id", "prj_…", &Opts::report_project).Required().To("project_id"),
        Opt("--locale", "zh-CN or en (default: the Project's)", &Opts::locale).To("locale"),
        Opt("--format", "markdown (default) or json: the canonical model and its digests",
            &Opts::report_format)
            .To("format"),
        Opt("--all", "also report archived Workstreams", &Opts::include_inactive)
            .To("include_archived"),
        Opt("--skip-evidence-checks", "do not re-check each handoff's evidence (faster)",
            &Opts::skip_evidence_checks)
            .Via(SkipChecks),
        Opt("--from", "a period's start, RFC 3339 (2026-08-03T00:00:00+08:00)", &Opts::report_from)
            .To("period/start"),
        Opt("--to", "its end (exclusive)", &Opts::report_to).To("period/end"),
        Opt("--timezone", "the period's IANA time zone (default: the Project's)", &Opts::timezone)
            .To("period/timezone"),
        Opt("--compare", "count the period just before it too", &Opts::compare_previous)
            .To("period/compare_to_previous_period")},
       {"POST", "/v1/handoff-reports/get"},
       FormatReport},
      {"handoff-report project", "Projects: create, list, show, update"},
      {"handoff-report project create",
       "a new Project (its key unique in the catalog)",
       {Opt("--key", "the project_key, one line (e.g. orders)", &Opts::report_key)
            .Required()
            .To("project_key"),
        Opt("--title", "its title", &Opts::title).Required().To("title"),
        Opt("--description", "what it is", &Opts::description).To("description"),
        Opt("--locale", "the report's language: zh-CN (default) or en", &Opts::locale)
            .To("default_locale"),
        Opt("--timezone", "an IANA time zone for periodic reports (default UTC)", &Opts::timezone)
            .To("timezone")},
       {"POST", "/v1/handoff-reports/projects/create"},
       FormatProject},
      {"handoff-report project list",
       "the Projects, in creation order",
       Paging("also list archived Projects"),
       {"POST", "/v1/handoff-reports/projects/list"},
       FormatProjects},
      {"handoff-report project show",
       "one Project",
       {Opt("project_id", "prj_…", &Opts::report_project).Required().To("project_id")},
       {"POST", "/v1/handoff-reports/projects/get"},
       FormatProject},
      {"handoff-report project update",
       "the next version of a Project: its whole descriptor as it should be",
       {JsonFile("descriptor", "the ProjectDescriptor as JSON (a file, or - for standard input)",
                 "project"),
        DescriptorVersion()},
       {"POST", "/v1/handoff-reports/projects/update"},
       FormatProject},
      {"handoff-report workstream", "Workstreams: register a scope, list, update"},
      {"handoff-report workstream register",
       "an existing scope as a Workstream of a Project (once)",
       {ProjectId(), ScopeOption(),
        Opt("--title", "its title", &Opts::title).Required().To("title"),
        Opt("--kind", "feature, bug, refactor, operations, research or other", &Opts::kind)
            .Required()
            .To("kind"),
        Opt("--key", "a short key unique in the Project (e.g. PC-142)", &Opts::report_key)
            .To("key"),
        Opt("--label", "a label (repeatable)", &Opts::labels).OneValue().To("labels")},
       {"POST", "/v1/handoff-reports/workstreams/register"},
       FormatWorkstream},
      {"handoff-report workstream list",
       "a Project's Workstreams",
       [] {
         std::vector<OptionSpec> o = {ProjectId()};
         for (OptionSpec& p : Paging("also list archived Workstreams")) o.push_back(p);
         return o;
       }(),
       {"POST", "/v1/handoff-reports/workstreams/list"},
       FormatWorkstreams},
      {"handoff-report workstream update",
       "the next version of a Workstream: its whole descriptor as it should be",
       {JsonFile("descriptor", "the WorkstreamDescriptor as JSON (a file, or - for standard input)",
                 "workstream"),
        DescriptorVersion()},
       {"POST", "/v1/handoff-reports/workstreams/update"},
       FormatWorkstream},
      {"handoff-report workspace", "workspace bindings: which Project a checkout reports to"},
      {"handoff-report workspace show",
       "a workspace's confirmed binding",
       {Opt("workspace", "the workspace_instance_id", &Opts::workspace)
            .Required()
            .To("workspace_instance_id")},
       {"POST", "/v1/handoff-reports/workspace-bindings/get"},
       FormatBinding},
      {"handoff-report workspace attach",
       "binds a workspace to a Project: the first time with no --expected-version",
       {Opt("workspace", "the workspace_instance_id", &Opts::workspace)
            .Required()
            .To("workspace_instance_id"),
        ProjectId(),
        Opt("--provider", "github, gitlab, local or other", &Opts::source)
            .Required()
            .To("repository_ref/provider"),
        Opt("--remote", "the credential-free normalized remote", &Opts::origin)
            .To("repository_ref/normalized_remote"),
        Opt("--repository-id", "the provider's immutable repository id", &Opts::target)
            .To("repository_ref/repository_id"),
        Opt("--subpath", "the project root inside the repository", &Opts::destination)
            .To("repository_ref/subpath"),
        Opt("--expected-version", "the binding's version (omit for a workspace never bound)",
            &Opts::expected_version)
            .Via(ExpectedOrNull)},
       {"POST", "/v1/handoff-reports/workspace-bindings/attach"},
       FormatBinding,
       Json{{"repository_ref",
             {{"repository_id", nullptr}, {"normalized_remote", nullptr}, {"subpath", nullptr}}}}},
      {"handoff-report workspace detach",
       "ends a workspace's binding (the record stays, detached)",
       {Opt("workspace", "the workspace_instance_id", &Opts::workspace)
            .Required()
            .To("workspace_instance_id"),
        DescriptorVersion()},
       {"POST", "/v1/handoff-reports/workspace-bindings/detach"},
       FormatBinding},
      {"handoff-report activity", "the Activity log: record, list, purge"},
      {"handoff-report activity record",
       "an observation (a commit, a session) for a Project; the same --event again is the same",
       {ProjectId(),
        Opt("--source", "handoff_observation, git_commit, git_worktree, coding_session or other",
            &Opts::source)
            .Required()
            .To("source"),
        Opt("--event", "the source's own id for it (idempotency key)", &Opts::event)
            .Required()
            .To("source_event_id"),
        Opt("--time-basis", "source_reported, host_observed, first_seen, current_only or unknown",
            &Opts::time_basis)
            .Required()
            .To("time_basis"),
        Opt("--occurred-at", "when it happened, RFC 3339", &Opts::occurred_at).To("occurred_at"),
        Opt("--workstream", "the Workstream's scope, when the host knows it", &Opts::scope)
            .To("scope_id"),
        Opt("--title", "a short title", &Opts::title).To("title")},
       {"POST", "/v1/handoff-reports/activities/record"},
       FormatActivity},
      {"handoff-report activity list",
       "a Project's Activity Events, oldest first",
       {ProjectId(),
        Opt("--after", "after this cursor (the previous page's)", &Opts::after).To("after_cursor"),
        Opt("--through", "the first page's high watermark", &Opts::revision).To("through_cursor"),
        Opt("--limit", "items per page (1-100, default 50)", &Opts::limit)
            .To("limit", Send::kIfPositive)},
       {"POST", "/v1/handoff-reports/activities/list"},
       FormatActivities},
      {"handoff-report activity purge",
       "deletes a Project's Activity Events observed before a moment (never a handoff)",
       {ProjectId(), Opt("--before", "RFC 3339: events observed before it go", &Opts::report_to)
                         .Required()
                         .To("observed_before")},
       {"POST", "/v1/handoff-reports/activities/purge"},
       FormatPurged},
  };
  return rows;
}

}  // namespace pc
