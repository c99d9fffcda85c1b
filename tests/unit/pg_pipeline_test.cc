// Conn's pipeline (store/postgres/pg_conn.h): statements queued with Send() go to the server with
// the next Query(), in one round trip, and its answer is theirs: the first error, or its rows.
#include <gtest/gtest.h>

#include <memory>

#include "store/postgres/pg_conn.h"
#include "test_util.h"

namespace pc::testing {
namespace {

class PgPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestingPostgres()) GTEST_SKIP() << "runs once, in the main pass";
    PC_REQUIRE_TEST_PG();
    schema = std::make_unique<TempPgSchema>();
    auto opened = pg::Conn::Open(schema->url());
    PC_ASSERT_OK(opened);
    conn = std::move(*opened);
    PC_ASSERT_OK(conn->Exec("CREATE TABLE t(x bigint PRIMARY KEY)"));
  }
  int64_t Count() {
    auto rows = conn->Query("SELECT count(*) FROM t");
    return rows.ok() ? rows->Int(0, 0) : -1;
  }
  std::unique_ptr<TempPgSchema> schema;
  std::unique_ptr<pg::Conn> conn;
};

TEST_F(PgPipeline, AQueryAnswersWithTheStatementsQueuedBeforeIt) {
  PC_ASSERT_OK(conn->Send("BEGIN", {}));
  PC_ASSERT_OK(conn->Send("INSERT INTO t VALUES($1)", {"1"}));
  PC_ASSERT_OK(conn->Send("INSERT INTO t VALUES($1)", {"2"}));
  // A statement not prepared yet: its preparation is queued too.
  auto rows = conn->Query("SELECT sum(x) + $1::bigint FROM t", {"10"});
  PC_ASSERT_OK(rows);
  ASSERT_EQ(rows->size(), 1);
  EXPECT_EQ(rows->Int(0, 0), 13) << "the query ran after the queued inserts";
  auto again = conn->Query("SELECT sum(x) + $1::bigint FROM t", {"20"});  // prepared, not queued
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->Int(0, 0), 23);
  PC_ASSERT_OK(conn->Exec("COMMIT"));
  EXPECT_EQ(Count(), 2);
  EXPECT_TRUE(conn->Idle());
}

TEST_F(PgPipeline, AQueuedStatementsErrorIsTheQuerysAndTheQueryDoesNotRun) {
  PC_ASSERT_OK(conn->Send("BEGIN", {}));
  PC_ASSERT_OK(conn->Send("INSERT INTO t VALUES($1)", {"1"}));
  PC_ASSERT_OK(conn->Send("INSERT INTO t VALUES($1)", {"1"}));  // a unique violation
  conn->ClearFailure();
  auto rows = conn->Query("INSERT INTO t VALUES($1) RETURNING x", {"3"});
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("INSERT INTO t VALUES"), std::string::npos)
      << rows.status().message();
  EXPECT_EQ(conn->first_failure(), "23505");
  PC_ASSERT_OK(conn->Exec("ROLLBACK"));
  EXPECT_EQ(Count(), 0) << "nothing of the transaction is kept, the query's row neither";
  EXPECT_TRUE(conn->Idle());
  auto later = conn->Query("INSERT INTO t VALUES($1) RETURNING x", {"4"});  // the session goes on
  PC_ASSERT_OK(later);
  EXPECT_EQ(later->Int(0, 0), 4);
}

}  // namespace
}  // namespace pc::testing
