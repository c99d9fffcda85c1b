// The embedded store: one SQLite database (WAL) in the data directory.
//
// Thread-safe. Writes are serialized by a process-wide mutex and, across processes, by SQLite's
// write lock (BEGIN IMMEDIATE + busy timeout). Reads run on a pool of connections, each inside a
// read transaction, so every Read callback sees one committed snapshot.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/store.h"

namespace pc::sqlite {

class Db;

enum class Durability {
  kFull,    // synchronous=FULL: a commit survives power loss once acknowledged (default)
  kNormal,  // synchronous=NORMAL: survives a process crash; the last commits may be lost on power loss
};

struct SqliteOptions {
  std::string data_dir;  // created if missing; the database is data_dir/powercontext.db
  Durability durability = Durability::kFull;
  int busy_timeout_ms = 10000;
};

class SqliteStore final : public Store {
 public:
  static Result<std::unique_ptr<SqliteStore>> Open(const SqliteOptions& options);
  ~SqliteStore() override;

  Status Read(const std::function<Status(ReadTxn&)>& fn) override;
  Status Write(const std::function<Status(WriteTxn&)>& fn) override;

 private:
  explicit SqliteStore(SqliteOptions options);
  Result<std::unique_ptr<Db>> OpenConnection();

  SqliteOptions options_;
  std::string db_path_;
  std::mutex write_mu_;
  std::unique_ptr<Db> writer_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Db>> idle_readers_;
};

}  // namespace pc::sqlite
