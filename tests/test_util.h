// Shared helpers for the tests: temporary directories and a real store + service on them.
#pragma once

#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "pg_scratch.h"
#include "service/memory/memory_service.h"
#include "store/sqlite/sqlite_store.h"

namespace pc::testing {

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The store the suites run against: SQLite, or PostgreSQL when POWERCONTEXT_TEST_STORE is
// "postgresql" (ctest runs the unit, golden and end-to-end suites a second time that way, as
// "pg:…", against the cluster of scripts/with-pg). One suite, two stores.
bool TestingPostgres();
// In a fixture's SetUp or a test that needs the test cluster itself: skips (with how to get one)
// when POWERCONTEXT_TEST_PG is unset on a developer's machine; fails in CI, where a skip would hide
// a broken setup.
#define PC_REQUIRE_TEST_PG()                                                                  \
  do {                                                                                        \
    const char* pc_test_pg = std::getenv("POWERCONTEXT_TEST_PG");                             \
    if ((!pc_test_pg || !*pc_test_pg) && std::getenv("CI"))                                   \
      FAIL() << "POWERCONTEXT_TEST_PG is not set in CI (scripts/with-pg starts the cluster)"; \
    if (!pc_test_pg || !*pc_test_pg)                                                          \
      GTEST_SKIP()                                                                            \
          << "POWERCONTEXT_TEST_PG is not set: no PostgreSQL to test against (scripts/test "  \
             "starts one when PostgreSQL is installed: apt-get install postgresql)";          \
  } while (0)
// With PostgreSQL: a fresh schema on the test cluster, dropped on destruction; its URL (the
// search_path set in the connection options) is what a store or a server opens.
class TempPgSchema : public PgScratchSchema {
 public:
  TempPgSchema();  // on POWERCONTEXT_TEST_PG
};

// A real store (SQLite in a temp dir, or PostgreSQL in a fresh schema: TestingPostgres()) with a
// MemoryService on top.
struct Fixture {
  TempDir dir;
  std::unique_ptr<TempPgSchema> pg;  // set when TestingPostgres()
  std::unique_ptr<Store> store;
  std::unique_ptr<MemoryService> memory;

  explicit Fixture(ServiceLimits limits = {});
  void Reopen();  // closes and reopens the same store (a restart)
  std::string NewScope(const std::string& key = "project:test");
  // The SQLite store, or null on PostgreSQL (for tests of SQLite's own machinery).
  sqlite::SqliteStore* sqlite() { return dynamic_cast<sqlite::SqliteStore*>(store.get()); }
  // Runs SQL on the store's database behind its back (damage, a failing trigger): `sqlite_sql` on
  // SQLite, `pg_sql` on PostgreSQL.
  Status ExecBehindTheStore(const std::string& sqlite_sql, const std::string& pg_sql);

 private:
  void Open(ServiceLimits limits);
};

// A real store that runs `between` right after the `after`-th read transaction it serves ends (the
// first, by default), and with `every` after each later one too: a write (or anything) forced
// between two reads of a use case. Everything else is `inner`'s.
class WriteBetweenReads final : public Store {
 public:
  WriteBetweenReads(Store& inner, std::function<void()> between, int after = 1, bool every = false)
      : inner_(inner), between_(std::move(between)), after_(after), every_(every) {}
  Status Read(const std::function<Status(ReadTxn&)>& fn) override {
    Status s = inner_.Read(fn);
    if (++reads_ == after_ || (every_ && reads_ > after_)) between_();
    return s;
  }
  Status Write(const Actor& actor, const std::function<Status(WriteTxn&)>& fn) override {
    return inner_.Write(actor, fn);
  }
  std::string TokensStamp() override { return inner_.TokensStamp(); }

 private:
  Store& inner_;
  std::function<void()> between_;
  int after_;
  bool every_;
  int reads_ = 0;
};

// Holds `store`'s writer with a write that sleeps `ms`, on a thread of its own, so that the writes
// started meanwhile queue up into one group. Returns once the write holds it; Join (or the
// destructor) waits for it to end.
class WriterHeld {
 public:
  WriterHeld(Store& store, int ms);
  ~WriterHeld() { Join(); }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> holding_{false};
  std::thread thread_;
};

}  // namespace pc::testing

// Asserts that a Status or Result is OK, printing the error otherwise.
// `expr` is held by reference: give it a Result or Status that outlives the statement, never a
// reference into a temporary (`Call().status()` dangles: ASan's stack-use-after-scope).
#define PC_ASSERT_OK(expr)                                     \
  do {                                                         \
    const auto& pc_r_ = (expr);                                \
    ASSERT_TRUE(pc_r_.ok()) << ::pc::testing::Describe(pc_r_); \
  } while (0)

namespace pc::testing {
inline std::string Describe(const Status& s) { return s.ToString(); }
template <typename T>
std::string Describe(const Result<T>& r) {
  return r.ok() ? "ok" : r.status().ToString();
}
}  // namespace pc::testing
