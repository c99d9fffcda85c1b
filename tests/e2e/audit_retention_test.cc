// The audit log's retention runs in `serve` (issue 27, N7): at start-up the background pass deletes
// what the settings no longer keep, and the server logs how many rows went.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "server_process.h"
#include "service/core/actor.h"
#include "test_util.h"

namespace pc::testing {
namespace {

int64_t Count(const std::string& data, const std::string& where) {
  sqlite3* db = nullptr;
  sqlite3_open((std::filesystem::path(data) / "powercontext.db").c_str(), &db);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, ("SELECT count(*) FROM audit_log WHERE " + where).c_str(), -1, &s,
                     nullptr);
  int64_t n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

TEST(AuditRetentionServe, TheStartUpPassDeletesWhatTheSettingsNoLongerKeep) {
  if (TestingPostgres()) GTEST_SKIP() << "the store's own test covers PostgreSQL";
  TempDir dir;
  const std::string data = dir.path() + "/data";
  const int64_t day = 86400000, now = NowMillis();
  {
    sqlite::SqliteOptions options;
    options.data_dir = data;
    auto store = sqlite::SqliteStore::Open(options);
    PC_ASSERT_OK(store);
    auto row = [&](int64_t at, const char* result) {
      return (*store)->Write(RequestActor(), [&](WriteTxn& txn) {
        return txn.AppendAudit(AuditRecord{0, at, "someone", "seeded", "", "{}", result, ""});
      });
    };
    for (int i = 0; i < 3; ++i) PC_ASSERT_OK(row(now - 100 * day + i, "ok"));     // past 90 days
    for (int i = 0; i < 4; ++i) PC_ASSERT_OK(row(now - 3 * day + i, "denied"));   // past 2 days
    for (int i = 0; i < 2; ++i) PC_ASSERT_OK(row(now - 3 * day + 10 + i, "ok"));  // kept
  }
  ServerProcess server(data, {"--audit-denied-retention-days", "2"});
  ASSERT_TRUE(server.Start());
  std::string log;
  for (int i = 0; i < 100 && log.find("audit retention deleted") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::ifstream in(server.log_path());
    std::stringstream all;
    all << in.rdbuf();
    log = all.str();
  }
  EXPECT_NE(log.find("audit retention deleted 7 rows"), std::string::npos) << log;
  server.Stop();
  EXPECT_EQ(Count(data, "operation = 'seeded' AND result = 'ok'"), 2);
  EXPECT_EQ(Count(data, "operation = 'seeded' AND result = 'denied'"), 0);
}

}  // namespace
}  // namespace pc::testing
