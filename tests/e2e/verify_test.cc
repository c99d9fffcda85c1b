// `powercontext verify` (issue 32) from the real binary, beside a server that keeps its store
// open: clean is exit 0, a damaged store exit 1 with each violation's kind and ids, a store or
// scope that cannot be verified exit 2. The damage of every invariant, on both stores, is
// tests/unit/verify_test.cc's.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

class VerifyCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server.Start());
    for (const char* text : {"Run contract tests after the migration.", "Amounts are cents."})
      ASSERT_EQ(RunCli({"remember", "--server", server.url(), "--scope", "project:e2e", "--kind",
                        "decision", text})
                    .exit_code,
                0);
  }
  TempDir dir;
  const std::string data = dir.path() + "/data";
  ServerProcess server{data};
};

TEST_F(VerifyCli, AStoreWrittenThroughItsServerVerifiesClean) {
  CliResult text = RunCli({"verify", "--data", data});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("1 scopes, 1 artifacts, 2 revisions, 2 entry versions"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("clean: every invariant holds"), std::string::npos) << text.out;

  CliResult machine = RunCli({"verify", "--data", data, "--scope", "project:e2e", "--json"});
  ASSERT_EQ(machine.exit_code, 0) << machine.err;
  json report = json::parse(machine.out);
  EXPECT_EQ(report["clean"], true);
  EXPECT_EQ(report["violations"], 0);
  EXPECT_EQ(report["checked"]["revisions"], 2);
  EXPECT_TRUE(report["findings"].empty());
}

TEST_F(VerifyCli, ADamagedStoreExitsOneNamingEachViolation) {
  if (TestingPostgres()) GTEST_SKIP() << "damages the SQLite file; unit tests damage both stores";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((std::filesystem::path(data) / "powercontext.db").c_str(), &db),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM revisions WHERE revision = 1", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  CliResult text = RunCli({"verify", "--data", data});
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_NE(text.out.find("violation revision_missing scope project:e2e (scp_"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find(" revision 1: "), std::string::npos) << text.out;

  CliResult machine = RunCli({"verify", "--data", data, "--json"});
  EXPECT_EQ(machine.exit_code, 1);
  json report = json::parse(machine.out);
  EXPECT_EQ(report["clean"], false);
  bool named = false;
  for (const json& f : report["findings"])
    named = named || (f["kind"] == "revision_missing" && f["revision"] == 1 &&
                      f["scope"] == "project:e2e" && f["severity"] == "violation" &&
                      f["artifact_id"].get<std::string>().rfind("mem_", 0) == 0);
  EXPECT_TRUE(named) << machine.out;
}

TEST_F(VerifyCli, WhatCannotBeVerifiedExitsTwoAndSaysWhy) {
  CliResult scope = RunCli({"verify", "--data", data, "--scope", "project:nobody"});
  EXPECT_EQ(scope.exit_code, 2);
  EXPECT_NE(scope.err.find("no scope project:nobody"), std::string::npos) << scope.err;
  EXPECT_TRUE(scope.out.empty()) << scope.out;

  CliResult nothing = RunCli({"verify", "--data", dir.path() + "/nothing-here"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("powercontext verify: "), std::string::npos) << nothing.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/nothing-here"));

  EXPECT_EQ(RunCli({"verify", "--data", data, "--no-such-option"}).exit_code, 2);
}

}  // namespace
}  // namespace pc::testing
