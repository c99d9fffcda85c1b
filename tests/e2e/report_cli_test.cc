// The Handoff Report catalog from the command line, against the real binary
// (docs/handoff-reports.md): a Project created, a scope registered as its Workstream once, and
// both updated from what `show --json` / `list --json` printed, by compare-and-set.
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

}  // namespace
}  // namespace pc::testing
