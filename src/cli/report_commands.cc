// The Handoff Report catalog commands (upstream RFC 0082, docs/handoff-reports.md):
//   handoff-report project create | list | show | update
//   handoff-report workstream register | list | update
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

OptionSpec ExpectedVersion() {
  return Opt("--expected-version", "the version the descriptor was read at",
             &Opts::expected_version)
      .Required()
      .To("expected_version");
}

std::vector<OptionSpec> Paging(const char* all_help) {
  return {Opt("--all", all_help, &Opts::include_inactive).To("include_archived"),
          Opt("--limit", "items per page (1-100, default 50)", &Opts::limit)
              .To("limit", Send::kIfPositive),
          Opt("--cursor", "next_cursor from the previous page", &Opts::cursor).To("cursor")};
}

}  // namespace

const std::vector<Row>& ReportRows() {
  static const std::vector<Row> rows = {
      {"handoff-report",
       "the Handoff Report catalog: Projects and their Workstreams "
       "(docs/handoff-reports.md)"},
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
        ExpectedVersion()},
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
        ExpectedVersion()},
       {"POST", "/v1/handoff-reports/workstreams/update"},
       FormatWorkstream},
  };
  return rows;
}

}  // namespace pc
