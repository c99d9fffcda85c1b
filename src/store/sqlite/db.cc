#include "store/sqlite/db.h"

#include <sqlite3.h>

#include <cctype>
#include <filesystem>

#include "store/sqlite/fts_extensions.h"
#include "store/sqlite/gate_reads.h"
#include "store/sqlite/store_files.h"

namespace pc::sqlite {

namespace {

// A file name as a URI path: every byte but the unreserved ones and '/' percent-encoded.
std::string FileUri(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// SQLite keeps memory statistics by default, under one process-wide mutex taken on every
// allocation and free. Full-text reads allocate for every row, so concurrent searches queued on
// that mutex (perf: futex waits inside sqlite3_step with 4 search clients; docs/benchmarks.md).
// Nothing here reads the statistics. It must be set before SQLite initializes: the first Db
// opened does it. Where SQLite is initialized already (a test opened a file directly), SQLite
// refuses the setting and keeps its statistics, which is harmless.
void TurnOffMemoryStatisticsOnce() {
  static const int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)rc;
}

}  // namespace

Result<std::unique_ptr<Db>> Db::Open(const std::string& path, int busy_timeout_ms, OpenMode mode) {
  TurnOffMemoryStatisticsOnce();
  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (mode == OpenMode::kCreate) flags |= SQLITE_OPEN_CREATE;
  if (mode == OpenMode::kReadOnly) flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
  if (mode == OpenMode::kImmutable)
    flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  const std::string name = mode == OpenMode::kImmutable ? FileUri(path) + "?immutable=1" : path;
  int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close(raw);
    return Internal("cannot open database " + path + ": " + msg);
  }
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  std::unique_ptr<Db> db(new Db(raw));
  PC_RETURN_IF_ERROR(RegisterFtsExtensions(raw));
  return db;
}

Result<std::unique_ptr<Db>> Db::OpenReadOnly(const std::string& dir, std::string& path) {
  std::error_code ec;
  std::filesystem::path file = std::filesystem::path(dir);
  if (!std::filesystem::is_regular_file(file, ec))
    file /= kDbFileName;  // the directory (or the file itself)
  file = std::filesystem::absolute(file, ec);
  path = file.string();
  if (ec || !std::filesystem::is_regular_file(file, ec))
    return NotFound("no PowerContext store in " + dir + ": " + path + " does not exist");
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Open(path, 10000, OpenMode::kReadOnly));
  PC_RETURN_IF_ERROR(db->Exec("PRAGMA query_only = ON"));
  return db;
}

Db::Db(sqlite3* db) : db_(db) {}

Db::~Db() {
  gate_reads_.reset();
  fts_tokenizer_.reset();  // before its connection closes
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

void Db::TrackWalFrames() {
  sqlite3_wal_hook(
      db_,
      [](void* self, sqlite3*, const char*, int frames) {
        static_cast<Db*>(self)->wal_frames_ = frames;
        return SQLITE_OK;
      },
      this);
}

Status Db::Checkpoint() {
  int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  return rc == SQLITE_OK || (rc & 0xff) == SQLITE_BUSY ? Status::Ok() : Error("checkpoint");
}

Status Db::Error(const std::string& what) const {
  return Internal(what + ": " + sqlite3_errmsg(db_));
}

int64_t Db::changes() const { return sqlite3_changes64(db_); }

int64_t Db::total_changes() const { return sqlite3_total_changes64(db_); }

bool Db::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

Status Db::Exec(const std::string& sql) {
  ++write_statements_;
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string msg = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  if ((rc & 0xff) == SQLITE_BUSY)
    return Unavailable("the database is busy (another process holds its lock): " + msg);
  return Internal("sqlite: " + msg);
}

void Db::KeepGateReads() {
  auto tokenizer = FtsTokenizer::Create(db_);
  if (!tokenizer.ok()) return;  // the gate reads the index, as without
  fts_tokenizer_ = std::move(tokenizer).value();
  gate_reads_ = std::make_unique<GateReads>();
  // Every rollback of a whole transaction: ROLLBACK however it is run, and SQLite's own after an
  // I/O error or a full disk. Neither hook touches the connection, as SQLite requires.
  sqlite3_rollback_hook(
      db_,
      [](void* self) {
        Db* db = static_cast<Db*>(self);
        db->gate_reads_->Clear();
        db->gate_reads_checked_ = false;
      },
      this);
  // A transaction's end: the next must be checked again (returning 0 lets the commit go on).
  sqlite3_commit_hook(
      db_,
      [](void* self) {
        static_cast<Db*>(self)->gate_reads_checked_ = false;
        return 0;
      },
      this);
}

Status Db::BeginImmediate() {
  gate_reads_checked_ = false;
  PC_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  if (!gate_reads_) return Status::Ok();
  // PRAGMA data_version moves when another connection (or process) has committed, never for
  // this connection's own commits; with the write lock held, nothing else commits until ours ends.
  const std::string sql = "PRAGMA data_version";
  int64_t version = -1;
  if (Prepare(sql).ok()) {  // cached; stepped here, so never counted among write_statements()
    sqlite3_stmt* s = cache_.at(sql);
    if (sqlite3_step(s) == SQLITE_ROW) version = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
  }
  if (version != gate_reads_version_ || version < 0) gate_reads_->Clear();
  gate_reads_version_ = version;
  gate_reads_checked_ = version >= 0;
  return Status::Ok();
}

Status Db::RollbackTo(const std::string& savepoint) {
  if (gate_reads_) gate_reads_->Clear();  // whether or not it succeeds
  return Exec("ROLLBACK TO " + savepoint);
}

Result<Stmt> Db::Prepare(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
        SQLITE_OK)
      return Error("prepare");
    it = cache_.emplace(sql, s).first;
  }
  return Stmt(this, it->second);
}

Stmt::~Stmt() {
  if (s_) {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
}

void Stmt::Check(int rc, int index) {
  if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) {
    bind_rc_ = rc;
    bind_index_ = index;
  }
}

Stmt& Stmt::Bind(int i, int64_t v) {
  Check(sqlite3_bind_int64(s_, i, v), i);
  return *this;
}
Stmt& Stmt::Bind(int i, const std::string& v) {
  Check(sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8), i);
  return *this;
}
Stmt& Stmt::Bind(int i, const std::optional<std::string>& v) {
  return v ? Bind(i, *v) : BindNull(i);
}
Stmt& Stmt::BindBlob(int i, const void* data, size_t bytes) {
  Check(sqlite3_bind_blob64(s_, i, data, bytes, SQLITE_TRANSIENT), i);
  return *this;
}
Stmt& Stmt::BindPointer(int i, void* p, const char* type) {
  Check(sqlite3_bind_pointer(s_, i, p, type, nullptr), i);
  return *this;
}
Stmt& Stmt::BindNull(int i) {
  Check(sqlite3_bind_null(s_, i), i);
  return *this;
}

Result<bool> Stmt::Step() {
  if (bind_rc_ != SQLITE_OK)
    return Status((bind_rc_ & 0xff) == SQLITE_TOOBIG ? Code::kTooLarge : Code::kInternal,
                  "sqlite: cannot bind parameter " + std::to_string(bind_index_) + ": " +
                      sqlite3_errstr(bind_rc_));
  if (!sqlite3_stmt_readonly(s_)) ++db_->write_statements_;
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  if ((rc & 0xff) == SQLITE_BUSY)
    return Unavailable("the database is busy (another process holds its lock); try again");
  return db_->Error("step");
}

Status Stmt::Run() {
  PC_ASSIGN_OR_RETURN(bool row, Step());
  (void)row;
  return Status::Ok();
}

int64_t Stmt::Int(int col) const { return sqlite3_column_int64(s_, col); }
double Stmt::Double(int col) const { return sqlite3_column_double(s_, col); }
std::string Stmt::Text(int col) const {
  auto p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_, col))) : std::string();
}
std::optional<std::string> Stmt::OptText(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Text(col);
}
std::pair<const void*, size_t> Stmt::Blob(int col) const {
  const void* p = sqlite3_column_blob(s_, col);
  return {p, static_cast<size_t>(sqlite3_column_bytes(s_, col))};
}
int Stmt::Columns() const { return sqlite3_column_count(s_); }

bool Stmt::IsNull(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }

}  // namespace pc::sqlite
