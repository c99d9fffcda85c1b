// Copies of the SQLite store for `powercontext backup` and `restore` (issue 32,
// docs/operations.md).
//
// A backup is `VACUUM INTO` a new file, run on a connection of its own: one read transaction, so
// the copy is exactly one committed state of the store while a server goes on writing (in WAL
// mode a reader never blocks the writer, nor the writer it), holding only live pages, in
// rollback-journal mode: one self-contained file. The other way, the online backup API
// (sqlite3_backup_step), copies page by page: done in steps it starts over whenever another
// process commits between two of them, so under a steady stream of writes it may never end; done
// in one step it is the same single read transaction, but copies free pages too.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace pc::sqlite {

// Writes a consistent copy of the database at `db_path` (which must exist) to `out_path` (which
// must not). Another process may be reading and writing the database meanwhile. A failure may
// leave a partial `out_path`, for the caller to remove.
Status SnapshotInto(const std::string& db_path, const std::string& out_path);

// What a store file holds, as CheckStoreFile read it.
struct StoreFileInfo {
  int schema_version = 0;  // PRAGMA user_version: the last migration applied
  int64_t scopes = 0;
  int64_t revisions = 0;  // of every artifact
};

// Reads `path` without locking or changing it: InvalidArgument unless it is a SQLite database
// holding a PowerContext schema this build can open (version 1 to LatestSchemaVersion()) that
// passes PRAGMA integrity_check (its first problems in the message).
Result<StoreFileInfo> CheckStoreFile(const std::string& path);

// Readies the store at `path`, about to be replaced by a restore, and proves nobody has it open:
// its write-ahead log is folded into it and removed (journal mode DELETE, which SQLite grants only
// to the one connection open). So a crash before the replacement leaves the old store whole in its
// one file. PermissionDenied, changing nothing, while another process (a `powercontext mcp
// --data`, an admin command) has it open.
Status ReleaseForReplace(const std::string& path);

// Makes the restored copy at `path` the store this build serves: rollback-journal mode (no -wal
// beside it to lose in a rename) and the normal migrations applied, in one transaction.
Status UpgradeRestoredFile(const std::string& path);

}  // namespace pc::sqlite
