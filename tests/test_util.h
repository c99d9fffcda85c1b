// Shared helpers for the tests: temporary directories and a real store + service on them.
#pragma once

#include <memory>
#include <string>

#include "service/memory_service.h"
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

// A real SQLite store in a temp dir with a MemoryService on top.
struct Fixture {
  TempDir dir;
  std::unique_ptr<sqlite::SqliteStore> store;
  std::unique_ptr<MemoryService> memory;

  explicit Fixture(ServiceLimits limits = {});
  void Reopen();  // closes and reopens the same directory (a restart)
  std::string NewScope(const std::string& key = "project:test");

 private:
  void Open(ServiceLimits limits);
};

}  // namespace pc::testing

// Asserts that a Status or Result is OK, printing the error otherwise.
#define PC_ASSERT_OK(expr)                                   \
  do {                                                       \
    const auto& pc_r_ = (expr);                              \
    ASSERT_TRUE(pc_r_.ok()) << ::pc::testing::Describe(pc_r_); \
  } while (0)

namespace pc::testing {
inline std::string Describe(const Status& s) { return s.ToString(); }
template <typename T>
std::string Describe(const Result<T>& r) {
  return r.ok() ? "ok" : r.status().ToString();
}
}  // namespace pc::testing
