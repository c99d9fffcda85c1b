// A thin RAII layer over one sqlite3 connection and its cached prepared statements.
// Not thread-safe: one Db is used by one thread at a time (the store hands them out).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace pc::sqlite {

class FtsTokenizer;
class Stmt;
class GateReads;

// How a database file is opened: created when missing (the store's own), only if it exists (a
// backup of a live store), read-only beside a server that goes on writing (verify, migrate's
// source), or read without a lock or a change, as a file nobody writes (a backup file being
// checked; its -wal and -shm, if any, are not read).
enum class OpenMode { kCreate, kExisting, kReadOnly, kImmutable };

class Db {
 public:
  static Result<std::unique_ptr<Db>> Open(const std::string& path, int busy_timeout_ms,
                                          OpenMode mode = OpenMode::kCreate);
  // The store of data directory `dir` (or the database file itself), never written: opened
  // read-only (OpenMode::kReadOnly), and query_only besides. Beside a
  // server that keeps writing (WAL). `path` is set to the database file's absolute path; NotFound
  // when there is none.
  static Result<std::unique_ptr<Db>> OpenReadOnly(const std::string& dir, std::string& path);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  Status Exec(const std::string& sql);
  // BEGIN IMMEDIATE, for the writer: its kept gate reads are checked against the database then,
  // once a transaction (another connection's commit since this one's last empties them).
  Status BeginImmediate();
  // ROLLBACK TO `savepoint`: what the kept gate reads took in since then is forgotten with them
  // (a whole transaction's rollback, automatic ones included, empties them by SQLite's hook).
  Status RollbackTo(const std::string& savepoint);
  // A cached statement for `sql`, reset and unbound when the returned Stmt goes out of scope.
  Result<Stmt> Prepare(const std::string& sql);
  Status Error(const std::string& what) const;  // a Status carrying sqlite's last error message
  // How many statements that may write have run on this connection (Exec counts always): a
  // write that failed without moving it changed nothing (see SqliteStore::RunGroup).
  uint64_t write_statements() const { return write_statements_; }
  // Rows the last INSERT, UPDATE or DELETE on this connection changed.
  int64_t changes() const;
  // Rows changed on this connection since it opened (sqlite3_total_changes64).
  int64_t total_changes() const;
  // Whether a transaction is open on this connection (a COMMIT or ROLLBACK that failed may leave
  // one).
  bool InTransaction() const;
  // Replaces SQLite's automatic checkpoint (run inside the commit that crosses its threshold)
  // with a count: after each commit, wal_frames() is the number of frames in the write-ahead log.
  void TrackWalFrames();
  int wal_frames() const { return wal_frames_; }
  // Copies committed log frames into the database without waiting for readers or writers.
  Status Checkpoint();

  // The writer's connection keeps the reconcile gate's reads between writes (gate_reads.h).
  // gate_reads() is nullptr on other connections, when they cannot be kept, and in a transaction
  // not begun by BeginImmediate; they are emptied when this connection rolls back, and when
  // another has committed since this one's last transaction — what they hold is always what this
  // connection would read.
  void KeepGateReads();
  GateReads* gate_reads() { return gate_reads_checked_ ? gate_reads_.get() : nullptr; }
  // The shared tables' tokenizer, for what gate_reads() must see as the index does; with it.
  FtsTokenizer* fts_tokenizer() { return fts_tokenizer_.get(); }

 private:
  explicit Db(sqlite3* db);
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
  uint64_t write_statements_ = 0;
  int wal_frames_ = 0;
  std::unique_ptr<FtsTokenizer> fts_tokenizer_;
  std::unique_ptr<GateReads> gate_reads_;
  bool gate_reads_checked_ = false;  // against this transaction's data version
  int64_t gate_reads_version_ = -1;  // the data version gate_reads_ holds
  friend class Stmt;
};

class Stmt {
 public:
  Stmt(Db* db, sqlite3_stmt* s) : db_(db), s_(s) {}
  Stmt(Stmt&& o) noexcept : db_(o.db_), s_(o.s_), bind_rc_(o.bind_rc_), bind_index_(o.bind_index_) {
    o.s_ = nullptr;
  }
  Stmt(const Stmt&) = delete;
  ~Stmt();

  // Bind by 1-based index. A bind that fails (an index out of range, a value over SQLite's length
  // limit) is remembered, and the next Step or Run fails with it: nothing runs with a NULL that
  // stands in for a value it could not take.
  Stmt& Bind(int i, int64_t v);
  Stmt& Bind(int i, const std::string& v);
  Stmt& Bind(int i, const std::optional<std::string>& v);
  Stmt& BindNull(int i);
  Stmt& BindBlob(int i, const void* data, size_t bytes);
  // A pointer for an SQL function of ours (sqlite3_bind_pointer), of type `type` (a string
  // constant); null binds NULL. Not owned: it must outlive the statement's use.
  Stmt& BindPointer(int i, void* p, const char* type);

  Result<bool> Step();  // true while a row is available
  Status Run();         // steps to completion, expecting no rows

  int64_t Int(int col) const;
  double Double(int col) const;
  std::string Text(int col) const;
  std::optional<std::string> OptText(int col) const;
  bool IsNull(int col) const;
  int Columns() const;  // columns of the statement's rows
  // The column's bytes, valid until the next Step (no copy).
  std::pair<const void*, size_t> Blob(int col) const;

 private:
  void Check(int rc, int index);
  Db* db_;
  sqlite3_stmt* s_;
  int bind_rc_ = 0;  // SQLITE_OK, or the first failed bind's code
  int bind_index_ = 0;
};

}  // namespace pc::sqlite
