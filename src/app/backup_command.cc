#include "app/backup_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/data_lock.h"
#include "cli/commands.h"
#include "common/durable_file.h"
#include "store/postgres/pg_conn.h"
#include "store/sqlite/backup.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/store_files.h"

namespace pc {
namespace {

namespace fs = std::filesystem;

using sqlite::kDbFileName;
// The files beside the database that belong to it: removed when --force replaces a store, so the
// restored database never meets the old one's log. The saved vector graphs (ann/) are caches a
// server rebuilds from the vectors in the database; tokens.stamp only tells servers to reread
// tokens.
std::vector<std::string> StoreFiles() {
  std::vector<std::string> out;
  for (const char* suffix : sqlite::kDbCompanionSuffixes)
    out.push_back(std::string(kDbFileName) + suffix);
  out.push_back(sqlite::kTokensStampName);
  out.push_back(sqlite::kAnnDirName);
  return out;
}

struct BackupOpts {
  std::string out, in;
  bool force = false;
};

// PostgreSQL has its own consistent dump; pretending to copy it here would be worse than saying.
Status PostgresRefusal(const std::string& what, const Config& c) {
  return Status(Code::kCapabilityUnavailable,
                what + " copies the SQLite store; this store is PostgreSQL (" +
                    pg::RedactUrl(c.store) +
                    "). Use PostgreSQL's own tools: pg_dump --format=custom while the servers run, "
                    "pg_restore into an empty database — the procedure is in docs/operations.md, "
                    "\"Backup and restore\"; nothing was written");
}

std::string DbPath(const Config& c) { return (fs::path(c.data_dir) / kDbFileName).string(); }

void Remove(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

int PrintBackup(const Config& c, const std::string& out, const sqlite::StoreFileInfo& info,
                bool json) {
  std::error_code ec;
  const auto bytes = static_cast<int64_t>(fs::file_size(out, ec));
  if (json) {
    std::cout << nlohmann::ordered_json{{"data", c.data_dir},
                                        {"out", out},
                                        {"bytes", bytes},
                                        {"schema_version", info.schema_version},
                                        {"scopes", info.scopes},
                                        {"revisions", info.revisions},
                                        {"integrity_check", "ok"},
                                        {"vector_graphs", "not copied; rebuilt by the server"}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << "backed up " << DbPath(c) << " to " << out << " (" << bytes << " bytes)\n"
            << "one consistent snapshot: schema " << info.schema_version << ", " << info.scopes
            << " scopes, " << info.revisions << " revisions; integrity_check ok\n"
            << "not copied: the saved vector graphs ("
            << (fs::path(c.data_dir) / sqlite::kAnnDirName).string()
            << "), caches a server rebuilds from the vectors in the store\n";
  return 0;
}

// Snapshot into a temporary file beside FILE, check it, sync it, then give it FILE's name.
Status Backup(const Config& c, const BackupOpts& o, sqlite::StoreFileInfo& info) {
  if (c.store != "sqlite") return PostgresRefusal("backup", c);
  std::error_code ec;
  if (!fs::is_regular_file(DbPath(c), ec))
    return Status(Code::kNotFound, "no PowerContext store in " + c.data_dir + " (no " +
                                       kDbFileName + "); nothing was written");
  if (fs::is_directory(o.out, ec))
    return InvalidArgument(o.out + " is a directory; --out names the backup file to write");
  const fs::path out = fs::weakly_canonical(o.out, ec);
  for (const std::string& name : StoreFiles())
    if (out == fs::weakly_canonical(fs::path(c.data_dir) / name, ec))
      return InvalidArgument(o.out +
                             " is part of the store being backed up; write the backup "
                             "elsewhere; nothing was written");
  if (out == fs::weakly_canonical(DbPath(c), ec))
    return InvalidArgument(o.out +
                           " is the store being backed up; write the backup elsewhere; "
                           "nothing was written");
  if (fs::exists(o.out, ec) && !o.force)
    return InvalidArgument(o.out +
                           " already exists; choose another name, or pass --force to "
                           "replace it; nothing was written");
  // Found capturing docs/operations.md: a missing directory was an internal error from SQLite
  // ("unable to open database: FILE.tmp-…").
  const fs::path dir = out.parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    return FieldError("out", "the directory of " + o.out + " (" + dir.string() +
                                 ") does not exist; create it first; nothing was written");
  const std::string tmp = o.out + ".tmp-" + std::to_string(::getpid());
  Remove(tmp);
  Status s = sqlite::SnapshotInto(DbPath(c), tmp);
  if (s.ok()) {
    Result<sqlite::StoreFileInfo> checked = sqlite::CheckStoreFile(tmp);
    s = checked.status();
    if (s.ok()) info = *checked;
  }
  if (s.ok()) s = SyncPath(tmp);
  if (s.ok()) s = RenameDurably(tmp, o.out, o.force);
  if (!s.ok()) {
    Remove(tmp);
    if (s.code() == Code::kInvalidArgument)
      s = InvalidArgument(s.message() + "; nothing was written");
  }
  return s;
}

ConfigCommand AddBackup(CLI::App& app, const std::shared_ptr<BackupOpts>& o) {
  CLI::App* sub = app.add_subcommand(
      "backup",
      "write a consistent copy of the SQLite store of --data to a file, while a server serves "
      "it (docs/operations.md)");
  sub->add_option("--out", o->out, "the backup file to write (must not exist, unless --force)")
      ->required();
  sub->add_flag("--force", o->force, "replace --out if it exists");
  return {sub, [o](const Config& c, bool json) {
            sqlite::StoreFileInfo info;
            Status s = Backup(c, *o, info);
            if (!s.ok()) return ReportError(s);
            return PrintBackup(c, o->out, info, json);
          }};
}

// The names in `dir` but its lock file, the first few ("" when there are none).
std::string Contents(const std::string& dir) {
  std::error_code ec;
  std::string names;
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "serve.lock") continue;
    if (++n <= 3) names += (names.empty() ? "" : ", ") + name;
  }
  return n > 3 ? names + ", …" : names;
}

// Every refusal comes before anything is written: the file first, then the directory.
Result<sqlite::StoreFileInfo> CheckRestore(const Config& c, const BackupOpts& o) {
  if (c.store != "sqlite") return PostgresRefusal("restore", c);
  std::error_code ec;
  if (!fs::is_regular_file(o.in, ec))
    return Status(Code::kNotFound, o.in + " is not a file; nothing was changed");
  if (fs::exists(o.in + "-wal", ec) && fs::file_size(o.in + "-wal", ec) > 0)
    return InvalidArgument(o.in +
                           "-wal lies beside it: that is a live database with its log, not "
                           "a backup (take one with `powercontext backup`); nothing was "
                           "changed");
  PC_ASSIGN_OR_RETURN(sqlite::StoreFileInfo info, sqlite::CheckStoreFile(o.in));
  if (fs::exists(c.data_dir, ec) && !fs::is_directory(c.data_dir, ec))
    return InvalidArgument(c.data_dir + " is not a directory; nothing was changed");
  PC_RETURN_IF_ERROR(DataDirLock::CheckFree(c.data_dir));
  const std::string found = Contents(c.data_dir);
  if (!found.empty() && !o.force)
    return InvalidArgument(c.data_dir + " is not empty (" + found +
                           "); restore into an empty data directory, or pass --force "
                           "to replace its store; nothing was changed");
  return info;
}

void RemoveTemp(const std::string& tmp) {
  Remove(tmp);
  for (const char* suffix : sqlite::kDbCompanionSuffixes) Remove(tmp + suffix);
}

// Copy beside the store, bring it to this build's schema, then one rename, holding the data
// directory's lock throughout so no server starts on a half-restored directory (taken here unless
// the caller holds it).
Status PutInPlace(const Config& c, const BackupOpts& o, bool lock_held = false) {
  std::unique_ptr<DataDirLock> lock;
  if (!lock_held) {
    PC_ASSIGN_OR_RETURN(lock, DataDirLock::Acquire(c.data_dir));
  }
  const std::string tmp = DbPath(c) + ".restore-tmp";
  RemoveTemp(tmp);
  Status s = CopyFileSynced(o.in, tmp);
  if (s.ok()) s = sqlite::UpgradeRestoredFile(tmp);
  if (s.ok()) s = sqlite::CheckStoreFile(tmp).status();  // the copy, as it will be served
  if (s.ok()) s = SyncPath(tmp);
  if (!s.ok()) {
    RemoveTemp(tmp);
    return s;
  }
  std::error_code ec;
  if (fs::exists(DbPath(c), ec)) s = sqlite::ReleaseForReplace(DbPath(c));
  // The old store is whole in its one file now; what lies beside it must go, or SQLite would
  // read an old -wal into the restored database.
  for (const std::string& name : StoreFiles()) {
    if (!s.ok()) break;
    fs::remove_all(fs::path(c.data_dir) / name, ec);
    if (ec)
      s = Internal("cannot remove " + (fs::path(c.data_dir) / name).string() + ": " + ec.message() +
                   "; the old store is still in place");
  }
  if (s.ok()) s = SyncPath(c.data_dir);
  if (s.ok()) s = RenameDurably(tmp, DbPath(c), /*replace=*/true);
  if (!s.ok()) RemoveTemp(tmp);
  return s;
}

int PrintRestore(const Config& c, const BackupOpts& o, const sqlite::StoreFileInfo& info,
                 bool json) {
  const int now = sqlite::LatestSchemaVersion();
  if (json) {
    std::cout << nlohmann::ordered_json{{"in", o.in},
                                        {"data", c.data_dir},
                                        {"schema_version", info.schema_version},
                                        {"migrated_to", now},
                                        {"scopes", info.scopes},
                                        {"revisions", info.revisions},
                                        {"integrity_check", "ok"}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << "restored " << o.in << " into " << DbPath(c) << "\n"
            << "schema " << info.schema_version
            << (info.schema_version < now ? " (migrated to " + std::to_string(now) + ")" : "")
            << ", " << info.scopes << " scopes, " << info.revisions
            << " revisions; integrity_check ok\n"
            << "the server rebuilds the vector graphs when first needed; serve it with: "
               "powercontext serve --data "
            << c.data_dir << "\n";
  return 0;
}

ConfigCommand AddRestore(CLI::App& app, const std::shared_ptr<BackupOpts>& o) {
  CLI::App* sub = app.add_subcommand(
      "restore",
      "put a backup file in place as the store of --data: an empty directory no server holds "
      "(docs/operations.md)");
  sub->add_option("--in", o->in, "the backup file (from powercontext backup)")->required();
  sub->add_flag("--force", o->force, "replace the store already in --data");
  return {sub, [o](const Config& c, bool json) {
            Result<sqlite::StoreFileInfo> info = CheckRestore(c, *o);
            Status s = info.ok() ? PutInPlace(c, *o) : info.status();
            if (!s.ok()) return ReportError(s);
            return PrintRestore(c, *o, *info, json);
          }};
}

}  // namespace

Status RestoreStoreFileLocked(const Config& config, const std::string& file, bool replace) {
  BackupOpts o;
  o.in = file;
  o.force = replace;
  return PutInPlace(config, o, /*lock_held=*/true);
}

std::vector<ConfigCommand> AddBackupCommands(CLI::App& app) {
  auto o = std::make_shared<BackupOpts>();
  return {AddBackup(app, o), AddRestore(app, o)};
}

}  // namespace pc
