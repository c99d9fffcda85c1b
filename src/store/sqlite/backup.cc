#include "store/sqlite/backup.h"

#include <memory>
#include <vector>

#include "store/sqlite/db.h"
#include "store/sqlite/schema.h"

namespace pc::sqlite {
namespace {

// Waits this long for a lock a writer holds (VACUUM INTO reads; a checkpoint never blocks it).
constexpr int kBusyTimeoutMs = 10000;
// The tables every PowerContext schema has had since migration 1.
constexpr const char* kCoreTables[] = {"schema_migrations", "scopes", "artifacts", "revisions"};
// Problems integrity_check reports at most (the message names the first few).
constexpr int kMaxProblems = 5;

Result<int64_t> One(Db& db, const std::string& sql) {
  PC_ASSIGN_OR_RETURN(Stmt s, db.Prepare(sql));
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Internal("no row from " + sql);
  return s.Int(0);
}

Status NotAStore(const std::string& path, const std::string& why) {
  return InvalidArgument(path + " is not a PowerContext store: " + why + "; nothing was changed");
}

Status CheckSchema(Db& db, const std::string& path, int version) {
  if (version <= 0) return NotAStore(path, "it has no PowerContext schema (user_version 0)");
  if (version > LatestSchemaVersion())
    return InvalidArgument(path + " has schema version " + std::to_string(version) +
                           ", newer than this build's " + std::to_string(LatestSchemaVersion()) +
                           "; restore it with a newer powercontext; nothing was changed");
  for (const char* table : kCoreTables) {
    PC_ASSIGN_OR_RETURN(int64_t n, One(db, std::string("SELECT count(*) FROM sqlite_schema WHERE "
                                                       "type = 'table' AND name = '") +
                                               table + "'"));
    if (n == 0) return NotAStore(path, std::string("it has no table ") + table);
  }
  PC_ASSIGN_OR_RETURN(int64_t last, One(db,
                                        "SELECT coalesce(max(version), 0) FROM "
                                        "schema_migrations"));
  if (last != version)
    return NotAStore(path, "its schema_migrations end at " + std::to_string(last) +
                               " but user_version says " + std::to_string(version));
  return Status::Ok();
}

Status CheckIntegrity(Db& db, const std::string& path) {
  PC_ASSIGN_OR_RETURN(Stmt s,
                      db.Prepare("PRAGMA integrity_check(" + std::to_string(kMaxProblems) + ")"));
  std::vector<std::string> problems;
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    problems.push_back(s.Text(0));
  }
  if (problems.size() == 1 && problems[0] == "ok") return Status::Ok();
  std::string text;
  for (const std::string& p : problems) text += (text.empty() ? "" : "; ") + p;
  return InvalidArgument(path + " fails SQLite's integrity check: " + text +
                         "; nothing was changed");
}

}  // namespace

Status SnapshotInto(const std::string& db_path, const std::string& out_path) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Db> db,
                      Db::Open(db_path, kBusyTimeoutMs, OpenMode::kExisting));
  PC_ASSIGN_OR_RETURN(Stmt s, db->Prepare("VACUUM INTO ?"));
  s.Bind(1, out_path);
  Status st = s.Run();
  if (!st.ok()) return Internal("cannot copy " + db_path + " to " + out_path + ": " + st.message());
  return Status::Ok();
}

Result<StoreFileInfo> CheckStoreFile(const std::string& path) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::Open(path, 0, OpenMode::kImmutable));
  StoreFileInfo info;
  Result<int64_t> version = One(*db, "PRAGMA user_version");
  if (!version.ok())
    return NotAStore(path, "not a SQLite database (" + version.status().message() + ")");
  info.schema_version = static_cast<int>(*version);
  Status s = CheckSchema(*db, path, info.schema_version);
  if (s.ok()) s = CheckIntegrity(*db, path);
  Result<int64_t> scopes = s.ok() ? One(*db, "SELECT count(*) FROM scopes") : s;
  Result<int64_t> revisions = scopes.ok() ? One(*db, "SELECT count(*) FROM revisions") : s;
  s = revisions.status();
  // SQLite's own errors here are the file's (a malformed page that stops the check itself).
  if (s.code() == Code::kInternal)
    return InvalidArgument(path + " fails SQLite's integrity check: " + s.message() +
                           "; nothing was changed");
  if (!s.ok()) return s;
  info.scopes = *scopes;
  info.revisions = *revisions;
  return info;
}

Status ReleaseForReplace(const std::string& path) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::Open(path, 0, OpenMode::kExisting));
  Result<std::string> mode = [&]() -> Result<std::string> {
    PC_ASSIGN_OR_RETURN(Stmt st, db->Prepare("PRAGMA journal_mode=DELETE"));
    PC_ASSIGN_OR_RETURN(bool row, st.Step());
    return row ? st.Text(0) : std::string();
  }();
  if (!mode.ok() || *mode != "delete")
    return Status(Code::kPermissionDenied,
                  "another process has " + path +
                      " open (a `powercontext mcp --data` or an admin command on this "
                      "directory?); stop it and restore again; nothing was changed");
  return Status::Ok();
}

Status UpgradeRestoredFile(const std::string& path) {
  PC_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::Open(path, kBusyTimeoutMs, OpenMode::kExisting));
  PC_RETURN_IF_ERROR(db->Exec("PRAGMA journal_mode=DELETE"));
  return Migrate(*db);
}

}  // namespace pc::sqlite
