// The Handoff Report catalog from the command line, against the real binary
// (docs/handoff-reports.md): a Project created, a scope registered as its Workstream once, and
// both updated from what `show --json` / `list --json` printed, by compare-and-set; a workspace
// attached and detached, an activity recorded once, and the report printed as Markdown and JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_on.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

TEST(ReportCli, ACatalogIsBuiltAndEditedByCompareAndSet) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start()) << Slurp(server.log_path());
  json p = JsonOn(server, {"handoff-report", "project", "create", "--key", "orders", "--title",
                           "Orders importer", "--locale", "en", "--timezone", "Asia/Shanghai"});
  const std::string id = p["project_id"];
  EXPECT_EQ(p["version"], 1);
  JsonOn(server, {"remember", "-s", "project:orders/parser", "-k", "fact", "Rows are CSV."});
  json w = JsonOn(server, {"handoff-report", "workstream", "register", "--project", id, "-s",
                           "project:orders/parser", "--title", "Parser errors", "--kind", "bug",
                           "--key", "PC-142", "--label", "parser", "--label", "csv"});
  EXPECT_EQ(w["labels"], json::array({"parser", "csv"}));
  CliResult again = On(server, {"handoff-report", "workstream", "register", "--project", id, "-s",
                                "project:orders/parser", "--title", "Again", "--kind", "bug"});
  EXPECT_EQ(again.exit_code, 4) << again.err;
  EXPECT_NE(again.err.find("scope_already_grouped"), std::string::npos) << again.err;

  json shown = JsonOn(server, {"handoff-report", "project", "show", id});
  shown["title"] = "订单导入";
  json updated =
      JsonOn(server, {"handoff-report", "project", "update", "-", "--expected-version", "1"},
             shown.dump());
  EXPECT_EQ(updated["version"], 2);
  EXPECT_EQ(updated["title"], "订单导入");
  CliResult stale =
      On(server, {"handoff-report", "project", "update", "-", "--expected-version", "1"},
         shown.dump());
  EXPECT_EQ(stale.exit_code, 4) << stale.err;
  EXPECT_NE(stale.err.find("project_conflict"), std::string::npos) << stale.err;

  json listed = JsonOn(server, {"handoff-report", "workstream", "list", "--project", id});
  ASSERT_EQ(listed["items"].size(), 1u);
  json ws = listed["items"][0];
  ws["catalog_state"] = "archived";
  JsonOn(server, {"handoff-report", "workstream", "update", "-", "--expected-version", "1"},
         ws.dump());
  EXPECT_TRUE(
      JsonOn(server, {"handoff-report", "workstream", "list", "--project", id})["items"].empty());
  EXPECT_EQ(
      JsonOn(server, {"handoff-report", "workstream", "list", "--project", id, "--all"})["items"]
          .size(),
      1u);
}

TEST(ReportCli, AWorkspaceAnActivityAndTheReportItself) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start()) << Slurp(server.log_path());
  const std::string id =
      JsonOn(server, {"handoff-report", "project", "create", "--key", "orders", "--title",
                      "Orders importer", "--locale", "en"})["project_id"];
  JsonOn(server, {"remember", "-s", "project:orders/parser", "-k", "fact", "Rows are CSV."});
  JsonOn(server, {"handoff-report", "workstream", "register", "--project", id, "-s",
                  "project:orders/parser", "--title", "Parser errors", "--kind", "bug"});
  // The first attach expects no binding; a second one like it is a conflict (exit 4).
  json b =
      JsonOn(server, {"handoff-report", "workspace", "attach", "ws_1", "--project", id,
                      "--provider", "github", "--remote", "https://github.com/acme/orders.git"});
  EXPECT_EQ(b["version"], 1);
  CliResult twice = On(server, {"handoff-report", "workspace", "attach", "ws_1", "--project", id,
                                "--provider", "github"});
  EXPECT_EQ(twice.exit_code, 4) << twice.err;
  EXPECT_NE(twice.err.find("workspace_binding_conflict"), std::string::npos) << twice.err;
  CliResult secret = On(server, {"handoff-report", "workspace", "attach", "ws_2", "--project", id,
                                 "--provider", "github", "--remote", "https://u:p@github.com/a/b"});
  EXPECT_EQ(secret.exit_code, 2) << secret.err;
  EXPECT_EQ(JsonOn(server, {"handoff-report", "workspace", "show", "ws_1"})["state"], "confirmed");
  json d =
      JsonOn(server, {"handoff-report", "workspace", "detach", "ws_1", "--expected-version", "1"});
  EXPECT_EQ(d["state"], "detached");
  EXPECT_EQ(On(server, {"handoff-report", "workspace", "show", "ws_1"}).exit_code, 3);

  const std::vector<std::string> record = {"handoff-report",
                                           "activity",
                                           "record",
                                           "--project",
                                           id,
                                           "--source",
                                           "git_commit",
                                           "--event",
                                           "abc123",
                                           "--time-basis",
                                           "source_reported",
                                           "--occurred-at",
                                           "2026-12-01T10:00:00+08:00",
                                           "--workstream",
                                           "project:orders/parser",
                                           "--title",
                                           "fix"};
  json first = JsonOn(server, record);
  json again = JsonOn(server, record);
  EXPECT_EQ(first, again) << "the same event again is the same event";
  json listed = JsonOn(server, {"handoff-report", "activity", "list", "--project", id});
  ASSERT_EQ(listed["items"].size(), 1u);
  EXPECT_EQ(listed["items"][0]["scope_id"], "project:orders/parser");

  CliResult md = On(server, {"handoff-report", "show", id});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("---\nschema: powercontext.handoff-report.v1\nlocale: en\n", 0), 0u)
      << md.out.substr(0, 200);
  EXPECT_NE(md.out.find("### Parser errors (project:orders/parser)"), std::string::npos) << md.out;
  CliResult zh = On(server, {"handoff-report", "show", id, "--locale", "zh-CN"});
  EXPECT_NE(zh.out.find("## 项目概览"), std::string::npos) << zh.out.substr(0, 400);
  json j = JsonOn(server, {"handoff-report", "show", id, "--format", "json", "--from",
                           "2026-11-30T00:00:00+08:00", "--to", "2026-12-07T00:00:00+08:00"});
  EXPECT_EQ(j["report"]["report_kind"], "periodic");
  EXPECT_EQ(j["report"]["activity_selection"].size(), 1u);
  CliResult bad = On(server, {"handoff-report", "show", id, "--locale", "fr"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("unsupported_report_locale"), std::string::npos) << bad.err;

  json purged = JsonOn(server, {"handoff-report", "activity", "purge", "--project", id, "--before",
                                "2999-01-01T00:00:00Z"});
  EXPECT_EQ(purged["deleted_count"], 1);
}

}  // namespace
}  // namespace pc::testing
