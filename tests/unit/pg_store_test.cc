// What only the PostgreSQL store has (the rest runs in every suite as pg:*): background jobs that
// several servers on one database run once at a time.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "store/postgres/pg_store.h"
#include "test_util.h"

namespace pc::testing {
namespace {

// Each test opens stores of its own on a fresh schema of the test cluster.
class PgStore : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestingPostgres()) GTEST_SKIP() << "runs once, in the main pass";
    PC_REQUIRE_TEST_PG();
    schema = std::make_unique<TempPgSchema>();
  }
  std::unique_ptr<TempPgSchema> schema;
};

TEST_F(PgStore, AJobRunsOnOneServerAtATime) {
  pg::PgOptions options;
  options.url = schema->url();
  auto a = pg::PgStore::Open(options), b = pg::PgStore::Open(options);  // two servers
  PC_ASSERT_OK(a);
  PC_ASSERT_OK(b);
  int ran = 0;
  bool inner = true;
  EXPECT_TRUE((*a)->RunExclusive("backfill", [&] {
    ++ran;
    inner = (*b)->RunExclusive("backfill", [&] { ++ran; });  // the other server, meanwhile
    EXPECT_TRUE((*b)->RunExclusive("scheduled_flush", [&] { ++ran; })) << "another job's name is free";
  }));
  EXPECT_FALSE(inner) << "two servers ran one job at once";
  EXPECT_EQ(ran, 2);
  EXPECT_TRUE((*b)->RunExclusive("backfill", [&] { ++ran; })) << "the lock outlived the job";
  EXPECT_EQ(ran, 3);
}

// --durability normal on PostgreSQL: this server's sessions commit without waiting for the WAL
// flush; full leaves the database's own setting (on by default).
TEST_F(PgStore, DurabilityNormalRelaxesOnlyThisServersCommits) {
  pg::PgOptions options;
  options.url = schema->url();
  auto full = pg::PgStore::Open(options);
  options.relaxed_commit = true;
  auto normal = pg::PgStore::Open(options);
  PC_ASSERT_OK(full);
  PC_ASSERT_OK(normal);
  auto relaxed = (*normal)->SessionSetting("synchronous_commit");
  auto strict = (*full)->SessionSetting("synchronous_commit");
  PC_ASSERT_OK(relaxed);
  PC_ASSERT_OK(strict);
  EXPECT_EQ(*relaxed, "off");
  EXPECT_EQ(*strict, "on");
}

}  // namespace
}  // namespace pc::testing
