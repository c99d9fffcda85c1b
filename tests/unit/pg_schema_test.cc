// The PostgreSQL store's connection and schema migrations (issue 15), against a real PostgreSQL:
// scripts/test starts a throwaway cluster (scripts/with-pg) and sets POWERCONTEXT_TEST_PG; without
// it these tests skip, saying so. Each test works in a database of its own, dropped after.
#include "store/postgres/pg_schema.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <random>
#include <thread>

#include "store/postgres/pg_conn.h"
#include "test_util.h"

namespace pc::pg {
namespace {

// A fresh database on the test cluster; its URL, and dropped when the test ends.
class PgDatabase : public ::testing::Test {
 protected:
  void SetUp() override {
    PC_REQUIRE_TEST_PG();
    base_ = std::getenv("POWERCONTEXT_TEST_PG");
    auto admin = Conn::Open(base_);
    ASSERT_TRUE(admin.ok()) << admin.status().message();
    admin_ = std::move(admin).value();
    name_ = "pc_test_" + std::to_string(std::random_device{}()) + "_" + std::to_string(::getpid());
    ASSERT_TRUE(admin_->Exec("CREATE DATABASE " + name_).ok());
    url_ = base_.substr(0, base_.rfind('/') + 1) + name_;
  }
  void TearDown() override {
    if (admin_ && !name_.empty())
      (void)admin_->Exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  }
  std::unique_ptr<Conn> Connect() {
    auto c = Conn::Open(url_);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(c).value() : nullptr;
  }
  int64_t Count(Conn& c, const std::string& sql) {
    auto rows = c.Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().message();
    return rows.ok() ? rows->Int(0, 0) : -1;
  }

  std::string base_, url_, name_;
  std::unique_ptr<Conn> admin_;
};

TEST_F(PgDatabase, AnEmptyDatabaseIsMigratedOnceAndRecorded) {
  auto c = Connect();
  ASSERT_TRUE(c);
  auto first = Migrate(*c);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, 0);
  auto again = Migrate(*c);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, LatestSchemaVersion());
  EXPECT_EQ(Count(*c, "SELECT count(*) FROM schema_migrations"), LatestSchemaVersion());
  for (const char* table :
       {"scopes", "artifacts", "revisions", "revision_changes", "entries", "entry_versions",
        "manifest", "entry_vectors", "sources", "cursors", "handoff_contents", "handoff_claims",
        "handoff_citations", "model_usage_daily", "recall_token_daily", "api_tokens", "audit_log"})
    EXPECT_EQ(Count(*c, std::string(
                            "SELECT count(*) FROM information_schema.tables WHERE table_name = '") +
                            table + "'"),
              1)
        << table;
  // One head line per entry, as in SQLite: a second open interval for an entry is refused.
  ASSERT_TRUE(c->Exec("INSERT INTO scopes VALUES ('scp_a', 'a', 1);"
                      "INSERT INTO artifacts(artifact_id, scope_id, family, is_default, "
                      "created_at) VALUES ('mem_a', 'scp_a', 'memory', true, 1);"
                      "INSERT INTO manifest VALUES ('mem_a', 'ent_1', 'env_1', true, 1, NULL)")
                  .ok());
  Status twice = c->Exec("INSERT INTO manifest VALUES ('mem_a', 'ent_1', 'env_2', true, 2, NULL)");
  EXPECT_FALSE(twice.ok());
  // A name is unique among live tokens only: a revoked name can be used again.
  const char* token =
      "INSERT INTO api_tokens(name, role, scope_patterns, secret_hash, created_by, created_at_ms)"
      " VALUES ('agent', 'writer', '[]', $1, 'local', 1)";
  ASSERT_TRUE(c->Query(token, {"h1"}).ok());
  EXPECT_FALSE(c->Query(token, {"h2"}).ok());
  ASSERT_TRUE(c->Exec("UPDATE api_tokens SET revoked_at_ms = 2 WHERE name = 'agent'").ok());
  EXPECT_TRUE(c->Query(token, {"h2"}).ok());
}

TEST_F(PgDatabase, ServersStartingAtOnceMigrateOnce) {
  constexpr int kServers = 4;
  std::vector<std::thread> servers;
  std::atomic<int> migrated_from_zero{0}, failed{0};
  for (int i = 0; i < kServers; ++i)
    servers.emplace_back([&] {
      auto c = Conn::Open(url_);
      if (!c.ok()) {
        ++failed;
        return;
      }
      auto found = Migrate(**c);
      if (!found.ok())
        ++failed;
      else if (*found == 0)
        ++migrated_from_zero;
    });
  for (auto& t : servers) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(migrated_from_zero.load(), 1)
      << "exactly one server migrates; the others wait, then find it done";
  auto c = Connect();
  ASSERT_TRUE(c);
  EXPECT_EQ(Count(*c, "SELECT count(*) FROM schema_migrations"), LatestSchemaVersion());
}

TEST_F(PgDatabase, ANewerSchemaIsRefusedAndLeftAsItWas) {
  auto c = Connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(Migrate(*c).ok());
  const std::string newer = std::to_string(LatestSchemaVersion() + 1);
  ASSERT_TRUE(c->Exec("INSERT INTO schema_migrations VALUES (" + newer + ", 0)").ok());
  auto refused = Migrate(*c);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("schema version " + newer), std::string::npos)
      << refused.status().message();
  EXPECT_EQ(Count(*c, "SELECT count(*) FROM schema_migrations"), LatestSchemaVersion() + 1);
  // The failed attempt's transaction is gone: the connection still works.
  EXPECT_EQ(Count(*c, "SELECT 1"), 1);
}

// Migration 13 drops the postings' index by document (PgTxn::RemoveEntryTextDoc finds a document's
// postings by the primary key): a database at 12, with postings in it, is upgraded and keeps them.
TEST_F(PgDatabase, APostingsIndexByDocumentIsDroppedOnUpgrade) {
  auto c = Connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(Migrate(*c).ok());
  ASSERT_GE(LatestSchemaVersion(), 13);
  // Back to schema 12 as it was: the index there, migration 13 not recorded, a posting written.
  ASSERT_TRUE(c->Exec("CREATE INDEX text_postings_doc ON text_postings(doc, kind, owner);"
                      "DELETE FROM schema_migrations WHERE version >= 13;"
                      "INSERT INTO text_postings VALUES (0, 'mem_a', 'import', 7, 1, '{0}')")
                  .ok());
  const char* indexed =
      "SELECT count(*) FROM pg_indexes WHERE tablename = 'text_postings'"
      " AND indexname = 'text_postings_doc'";
  ASSERT_EQ(Count(*c, indexed), 1);
  auto upgraded = Migrate(*c);
  ASSERT_TRUE(upgraded.ok()) << upgraded.status().message();
  EXPECT_EQ(*upgraded, 12);
  EXPECT_EQ(Count(*c, indexed), 0);
  EXPECT_EQ(Count(*c, "SELECT count(*) FROM text_postings WHERE doc = 7"), 1);
  EXPECT_EQ(Count(*c, "SELECT max(version) FROM schema_migrations"), LatestSchemaVersion());
}

TEST_F(PgDatabase, StatementsTakeParametersNeverSplicedText) {
  auto c = Connect();
  ASSERT_TRUE(c);
  ASSERT_TRUE(Migrate(*c).ok());
  const std::string hostile = "x'); DROP TABLE scopes; --";
  auto inserted = c->Query("INSERT INTO scopes VALUES ($1, $2, $3)", {"scp_h", hostile, "7"});
  ASSERT_TRUE(inserted.ok()) << inserted.status().message();
  EXPECT_EQ(inserted->affected(), 1);
  auto read = c->Query("SELECT key, created_at FROM scopes WHERE scope_id = $1", {"scp_h"});
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 1);
  EXPECT_EQ(read->Text(0, 0), hostile);
  EXPECT_EQ(read->Int(0, 1), 7);
  auto duplicate = c->Query("INSERT INTO scopes VALUES ($1, $2, $3)", {"scp_h2", hostile, "8"});
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(std::get<std::string>(duplicate.status().details().at(0).value),
            "23505");  // unique_violation
}

TEST(PgConn, ThePasswordIsNeverShown) {
  EXPECT_EQ(RedactUrl("postgresql://pc:s3cret@db.example:5432/pc"),
            "postgresql://pc:****@db.example:5432/pc");
  EXPECT_EQ(RedactUrl("postgresql://pc@db.example/pc"), "postgresql://pc@db.example/pc");
  EXPECT_EQ(RedactUrl("postgresql://db.example/pc?user=a"), "postgresql://db.example/pc?user=a");
  // Nothing listens on port 1: the error names the place, never the password.
  auto c = Conn::Open("postgresql://pc:s3cret@127.0.0.1:1/pc?connect_timeout=2");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message().find("s3cret"), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("127.0.0.1"), std::string::npos) << c.status().message();
}

}  // namespace
}  // namespace pc::pg
