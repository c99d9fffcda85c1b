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

// The shape of the gate's term lists (pg_text.cc, ReadTermLists): an array of values, each with
// its newest rows. PostgreSQL plans it anew at every call when left to choose; planned once, it
// runs on its generic plan, and the setting is back as it was after it.
TEST_F(PgPipeline, AStatementPlannedOnceRunsOnItsGenericPlan) {
  PC_ASSERT_OK(conn->Exec("INSERT INTO t SELECT generate_series(1, 200)"));
  PC_ASSERT_OK(conn->Exec("ANALYZE t"));
  const std::string lists =
      "SELECT u.i, y.x FROM unnest($1::bigint[]) WITH ORDINALITY AS u(v, i)"
      " CROSS JOIN LATERAL (SELECT x FROM t WHERE x <= u.v ORDER BY x DESC LIMIT $2) y"
      " ORDER BY u.i, y.x DESC";
  const std::string left_to_choose = lists + " -- left to choose";
  auto plans = [&](const std::string& sql) -> std::pair<int64_t, int64_t> {
    auto r = conn->Query(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1",
        {sql});
    if (!r.ok() || r->size() != 1) return {-1, -1};
    return {r->Int(0, 0), r->Int(0, 1)};
  };
  PC_ASSERT_OK(conn->Exec("BEGIN"));
  for (int call = 0; call < 8; ++call) {
    auto once = conn->QueryPlannedOnce(lists, {"{5,100}", "2"});
    PC_ASSERT_OK(once);
    ASSERT_EQ(once->size(), 4);
    EXPECT_EQ(once->Int(0, 1), 5);
    EXPECT_EQ(once->Int(1, 1), 4);
    EXPECT_EQ(once->Int(3, 1), 99);
    PC_ASSERT_OK(conn->Query(left_to_choose, {"{5,100}", "2"}));
  }
  auto mode = conn->Query("SELECT current_setting('plan_cache_mode')");
  PC_ASSERT_OK(mode);
  EXPECT_EQ(mode->Text(0, 0), "auto") << "set back after the statement";
  PC_ASSERT_OK(conn->Exec("COMMIT"));
  EXPECT_EQ(plans(lists), std::make_pair(int64_t{8}, int64_t{0}));
  EXPECT_EQ(plans(left_to_choose), std::make_pair(int64_t{0}, int64_t{8}))
      << "PostgreSQL left to choose plans it at every call: what the setting is for";
}

}  // namespace
}  // namespace pc::testing
