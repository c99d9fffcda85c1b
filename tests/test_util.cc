#include "test_util.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "service/core/actor.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_store.h"

namespace pc::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "pctest-XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  if (!made) std::abort();
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

bool TestingPostgres() {
  const char* store = std::getenv("POWERCONTEXT_TEST_STORE");
  return store && std::strcmp(store, "postgresql") == 0;
}

namespace {

// The "pg:" runs without a PostgreSQL: every test skips, saying why — except in CI, which installs
// PostgreSQL, so a skip there would hide a broken set-up.
class PostgresAvailable : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!TestingPostgres()) return;
    const char* url = std::getenv("POWERCONTEXT_TEST_PG");
    if (url && *url) return;
    if (std::getenv("CI"))
      FAIL() << "POWERCONTEXT_TEST_PG is not set in CI (scripts/with-pg starts the cluster)";
    GTEST_SKIP()
        << "POWERCONTEXT_TEST_PG is not set: no PostgreSQL to test against "
           "(scripts/test starts one when PostgreSQL is installed: apt-get install postgresql)";
  }
};
[[maybe_unused]] const auto* const kPostgresAvailable =
    ::testing::AddGlobalTestEnvironment(new PostgresAvailable);

}  // namespace

namespace {
std::string TestPgUrl() {
  const char* base = std::getenv("POWERCONTEXT_TEST_PG");
  if (!base || !*base)
    throw std::runtime_error(
        "POWERCONTEXT_TEST_STORE=postgresql needs POWERCONTEXT_TEST_PG (scripts/with-pg sets it)");
  return base;
}
}  // namespace

TempPgSchema::TempPgSchema() : PgScratchSchema(TestPgUrl()) {}

Fixture::Fixture(ServiceLimits limits) {
  if (TestingPostgres()) pg = std::make_unique<TempPgSchema>();
  Open(limits);
}

void Fixture::Reopen() {
  ServiceLimits limits = memory->limits();
  memory.reset();
  store.reset();
  Open(limits);
}

void Fixture::Open(ServiceLimits limits) {
  if (pg) {
    pg::PgOptions options;
    options.url = pg->url();
    auto opened = pg::PgStore::Open(options);
    if (!opened.ok()) throw std::runtime_error(opened.status().ToString());
    store = std::move(opened).value();
  } else {
    sqlite::SqliteOptions options;
    options.data_dir = dir.path();
    auto opened = sqlite::SqliteStore::Open(options);
    if (!opened.ok()) throw std::runtime_error(opened.status().ToString());
    store = std::move(opened).value();
  }
  memory = std::make_unique<MemoryService>(*store, limits);
}

Status Fixture::ExecBehindTheStore(const std::string& sqlite_sql, const std::string& pg_sql) {
  if (pg) {
    PC_ASSIGN_OR_RETURN(auto conn, pg::Conn::Open(pg->url()));
    return conn->Exec(pg_sql);
  }
  sqlite3* db = nullptr;
  if (sqlite3_open((std::filesystem::path(dir.path()) / "powercontext.db").c_str(), &db) !=
      SQLITE_OK) {
    sqlite3_close(db);
    return Internal("cannot open the test database");
  }
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sqlite_sql.c_str(), nullptr, nullptr, &error);
  Status out = rc == SQLITE_OK ? Status::Ok() : Internal(error ? error : "sqlite3_exec failed");
  sqlite3_free(error);
  sqlite3_close(db);
  return out;
}

std::string Fixture::NewScope(const std::string& key) {
  auto out = memory->CreateScope(key);
  if (!out.ok()) throw std::runtime_error(out.status().ToString());
  return out->scope.scope_id;
}

WriterHeld::WriterHeld(Store& store, int ms) {
  thread_ = std::thread([this, &store, ms] {
    const Status s = store.Write(RequestActor(), [&](WriteTxn&) -> Status {
      holding_ = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    holding_ = true;  // a write that failed to start holds nothing: do not wait forever
  });
  while (!holding_) std::this_thread::yield();
}

}  // namespace pc::testing
