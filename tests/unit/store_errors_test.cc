// Errors that tell the truth (issue 27): a busy store is a retryable 503 with Retry-After, a token
// change is either kept and answered or not kept at all, a failed read leaves no transaction
// behind on a pooled connection, and a prepared context comes from one snapshot.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <utility>

#include "api/router.h"
#include "service/admin/token_service.h"
#include "service/context/context_service.h"
#include "service/core/actor.h"
#include "service/flush/source_service.h"
#include "store/postgres/pg_store.h"
#include "test_util.h"
#include "wire/error_map.h"

namespace pc {
namespace {

using testing::Fixture;
using testing::WriteBetweenReads;

ListEntriesRequest Head(const std::string& scope_id) {
  ListEntriesRequest r;
  r.scope_id = scope_id;
  return r;
}

std::optional<int64_t> DetailInt(const Status& s, const std::string& key) {
  for (const Detail& d : s.details())
    if (d.key == key)
      if (const auto* v = std::get_if<int64_t>(&d.value)) return *v;
  return std::nullopt;
}

// The table and the router: unavailable is 503, and its retry_after_seconds becomes Retry-After.
TEST(StoreErrors, UnavailableIsA503WithRetryAfter) {
  EXPECT_EQ(HttpStatusFor(Code::kUnavailable), 503);
  EXPECT_EQ(CodeFromName("unavailable"), Code::kUnavailable);
  EXPECT_EQ(CodeForHttpStatus(503), Code::kProviderUnavailable)
      << "a bare 503 still reads as before";
  Router router;
  router.Add("POST", "/v1/busy", {"busy", Permission::kRead},
             [](const ApiRequest&) -> Result<ApiResponse> {
               return Unavailable("the database is busy", 2);
             });
  router.Add("POST", "/v1/broken", {"broken", Permission::kRead},
             [](const ApiRequest&) -> Result<ApiResponse> { return Internal("a bug"); });
  ApiRequest busy{"POST", "/v1/busy", {}, {}, "", ""};
  ApiResponse r = router.Dispatch(busy);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body["error"]["code"], "unavailable");
  EXPECT_EQ(r.body["error"]["details"]["retry_after_seconds"], 2);
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].first, "Retry-After");
  EXPECT_EQ(r.headers[0].second, "2");
  ApiRequest broken{"POST", "/v1/broken", {}, {}, "", ""};
  ApiResponse b = router.Dispatch(broken);
  EXPECT_EQ(b.status, 500);
  EXPECT_TRUE(b.headers.empty());
}

// Another process holds SQLite's write lock past the busy timeout: the write is refused as
// unavailable (retry), not rate_limited, and nothing of it is kept; it passes once the lock is
// gone.
TEST(StoreErrors, ABusySqliteDatabaseIsUnavailableAndKeepsNothing) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's write lock";
  testing::TempDir dir;
  sqlite::SqliteOptions options;
  options.data_dir = dir.path();
  options.busy_timeout_ms = 50;
  auto store = sqlite::SqliteStore::Open(options);
  PC_ASSERT_OK(store);
  MemoryService memory(**store, {});
  auto scope = memory.CreateScope("project:busy");
  PC_ASSERT_OK(scope);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((std::filesystem::path(dir.path()) / "powercontext.db").c_str(), &other),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto refused =
      memory.Remember({scope->scope.scope_id, "fact", "Written while busy.", "", "", {}, {}, ""});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kUnavailable) << refused.status().ToString();
  EXPECT_EQ(DetailInt(refused.status(), "retry_after_seconds"), 1);
  EXPECT_EQ(HttpStatusFor(refused.status().code()), 503);
  ASSERT_EQ(sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  auto listed = memory.ListEntries(Head(scope->scope.scope_id));
  PC_ASSERT_OK(listed);
  EXPECT_TRUE(listed->items.empty()) << "the refused write left nothing";
  PC_ASSERT_OK(
      memory.Remember({scope->scope.scope_id, "fact", "Written while busy.", "", "", {}, {}, ""}));
}

// A read whose COMMIT failed must not go back to the pool inside its transaction: the next read
// on that connection would answer from the old snapshot, or fail to begin.
TEST(StoreErrors, AReadWhoseCommitFailedLeavesNoTransactionBehind) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's reader pool";
  testing::TempDir dir;
  sqlite::SqliteOptions options;
  options.data_dir = dir.path();
  options.fail_read_commits = 1;
  auto store = sqlite::SqliteStore::Open(options);
  PC_ASSERT_OK(store);
  MemoryService memory(**store, {});
  auto scope = memory.CreateScope("project:reads");
  PC_ASSERT_OK(scope);
  const std::string id = scope->scope.scope_id;
  auto failed = memory.ListEntries(Head(id));  // its COMMIT fails (injected)
  ASSERT_FALSE(failed.ok());
  PC_ASSERT_OK(memory.Remember({id, "fact", "Written after the failed read.", "", "", {}, {}, ""}));
  for (int i = 0; i < 3; ++i) {  // whichever pooled connection answers
    auto listed = memory.ListEntries(Head(id));
    PC_ASSERT_OK(listed);
    ASSERT_EQ(listed->items.size(), 1u) << "a read answered from a snapshot before the write";
  }
}

// A token change whose stamp cannot be prepared is not kept (no token whose secret was never
// shown); one whose stamp cannot be replaced after the commit is kept and answered (the secret is
// returned), and its revocation holds in this process at once.
TEST(StoreErrors, ATokenChangeIsKeptAndAnsweredOrNotKept) {
  if (testing::TestingPostgres()) GTEST_SKIP() << "SQLite's stamp file (PostgreSQL's is a row)";
  Fixture f;
  TokenService tokens(*f.store);
  const std::filesystem::path data = f.dir.path();
  const std::filesystem::path tmp = data / ("tokens.stamp.tmp." + std::to_string(::getpid()));
  std::filesystem::create_directory(tmp);  // the stamp's temporary file cannot be written
  auto refused = tokens.Create({"agent", "writer", {}, ""}, "local");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kInternal);
  EXPECT_NE(refused.status().message().find("not kept"), std::string::npos)
      << refused.status().message();
  auto none = tokens.List();
  PC_ASSERT_OK(none);
  EXPECT_TRUE(none->empty()) << "a token exists whose secret nobody was given";
  std::filesystem::remove(tmp);

  auto created = tokens.Create({"agent", "writer", {}, ""}, "local");
  PC_ASSERT_OK(created);
  PC_ASSERT_OK(tokens.Authenticate(created->secret));  // cached now

  std::filesystem::create_directory(tmp);
  auto still = tokens.Revoke("agent");
  EXPECT_EQ(still.code(), Code::kInternal) << still.ToString();
  EXPECT_TRUE(tokens.Authenticate(created->secret).ok()) << "a revocation that failed revoked";
  std::filesystem::remove(tmp);

  // The stamp itself cannot be replaced (a directory in its place): the change is committed, so
  // it is answered as such.
  std::filesystem::remove(data / "tokens.stamp");
  std::filesystem::create_directories(data / "tokens.stamp" / "blocked");
  auto second = tokens.Create({"second", "reader", {}, ""}, "local");
  PC_ASSERT_OK(second);
  EXPECT_FALSE(second->secret.empty());
  PC_ASSERT_OK(tokens.Authenticate(second->secret));
  PC_ASSERT_OK(tokens.Revoke("agent"));
  auto revoked = tokens.Authenticate(created->secret);
  ASSERT_FALSE(revoked.ok()) << "this process still accepts a revoked token";
  EXPECT_EQ(revoked.status().code(), Code::kUnauthenticated);
  EXPECT_FALSE(std::filesystem::exists(tmp)) << "the temporary stamp was left behind";
}

// Prepare reads its memory hits and its Experience in one snapshot: a source written right after
// the first read transaction is not in the answer (with two reads, it was).
TEST(StoreErrors, PrepareAnswersFromOneSnapshot) {
  Fixture f;
  const std::string scope = f.NewScope();
  PC_ASSERT_OK(f.memory->Remember(
      {scope, "fact", "The importer stores amounts in cents.", "", "", {}, {}, ""}));
  SourceService sources(*f.store);
  WriteBetweenReads store(*f.store, [&] {
    EXPECT_TRUE(sources
                    .Add(scope, {{"work_log", "", "Moved the importer amounts to decimal cents.",
                                  "{}", std::nullopt}})
                    .ok());
  });
  SearchService search(store);
  ContextService context(store, search);
  auto prepared = context.Prepare(
      {scope, "importer amounts cents", 4000, SearchMode::kFts, true, std::nullopt});
  PC_ASSERT_OK(prepared);
  ASSERT_FALSE(prepared->items.empty());
  for (const ContextItem& item : prepared->items)
    EXPECT_EQ(item.type, ContextItemType::kMemory)
        << "an item written after the snapshot: " << item.ref;
  // The source is there for the next preparation.
  ContextService direct(*f.store, search);
  auto next =
      direct.Prepare({scope, "importer amounts cents", 4000, SearchMode::kFts, true, std::nullopt});
  PC_ASSERT_OK(next);
  EXPECT_EQ(next->items.size(), 2u);
}

// PostgreSQL: a write that keeps losing races is a retryable 503, nothing written.
class PgStoreErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::TestingPostgres()) GTEST_SKIP() << "runs once, in the main pass";
    PC_REQUIRE_TEST_PG();
    schema = std::make_unique<testing::TempPgSchema>();
  }
  std::unique_ptr<testing::TempPgSchema> schema;
};

TEST_F(PgStoreErrors, AWriteThatKeepsLosingRacesIsUnavailable) {
  pg::PgOptions options;
  options.url = schema->url();
  options.max_write_attempts = 3;
  auto store = pg::PgStore::Open(options);
  PC_ASSERT_OK(store);
  int runs = 0;
  Status lost = (*store)->Write(RequestActor(), [&](WriteTxn&) {
    ++runs;
    return Internal("serialization failure").WithDetail("sqlstate", "40001");
  });
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(lost.code(), Code::kUnavailable) << lost.ToString();
  EXPECT_EQ(DetailInt(lost, "retry_after_seconds"), 1);
}

// Every connection in use past the acquire timeout: Unavailable, not a request that hangs.
TEST_F(PgStoreErrors, AFullPoolIsUnavailableAfterItsTimeout) {
  pg::PgOptions options;
  options.url = schema->url();
  options.max_connections = 1;
  options.acquire_timeout_ms = 200;
  auto store = pg::PgStore::Open(options);
  PC_ASSERT_OK(store);
  Status inner;
  const auto started = std::chrono::steady_clock::now();
  PC_ASSERT_OK((*store)->Read([&](ReadTxn&) {
    inner = (*store)->Read([](ReadTxn&) { return Status::Ok(); });  // the one connection is taken
    return Status::Ok();
  }));
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(inner.code(), Code::kUnavailable) << inner.ToString();
  EXPECT_EQ(DetailInt(inner, "retry_after_seconds"), 1);
  EXPECT_GE(waited, std::chrono::milliseconds(200));
  EXPECT_LT(waited, std::chrono::seconds(5));
}

// A background job that throws gives its connection (and its lock) back: with a pool of one,
// the next read and the next run of the job still work.
TEST_F(PgStoreErrors, AJobThatThrowsLosesNoConnection) {
  pg::PgOptions options;
  options.url = schema->url();
  options.max_connections = 1;
  options.acquire_timeout_ms = 500;
  auto store = pg::PgStore::Open(options);
  PC_ASSERT_OK(store);
  for (int i = 0; i < 3; ++i)
    EXPECT_THROW((*store)->RunExclusive("backfill", [] { throw std::runtime_error("job failed"); }),
                 std::runtime_error);
  PC_ASSERT_OK((*store)->Read([](ReadTxn&) { return Status::Ok(); }));
  int ran = 0;
  EXPECT_TRUE((*store)->RunExclusive("backfill", [&] { ++ran; })) << "the lock outlived the job";
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace pc
