// `powercontext backup --data DIR --out FILE` and `powercontext restore --data DIR --in FILE`
// (issue 32, docs/operations.md "Backup and restore"): a consistent copy of the SQLite store taken
// while a server serves DIR and writes to it (store/sqlite/backup.h), and its restore into an
// empty data directory that no server holds. On PostgreSQL both refuse, pointing to pg_dump and
// pg_restore. Every refusal is a message on stderr and a non-zero exit, and changes nothing.
#pragma once

#include <string>
#include <vector>

#include "app/config_command.h"
#include "common/status.h"

namespace pc {

std::vector<ConfigCommand> AddBackupCommands(CLI::App& app);

// Puts the store file `file` in place as the store of config.data_dir, as `restore` does (one
// rename; `replace`: an existing store is replaced), for a caller that holds the data directory's
// lock (DataDirLock) already: `import` puts its staged store in place with it.
Status RestoreStoreFileLocked(const Config& config, const std::string& file, bool replace);

}  // namespace pc
