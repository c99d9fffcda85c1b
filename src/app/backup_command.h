// `powercontext backup --data DIR --out FILE` and `powercontext restore --data DIR --in FILE`
// (issue 32, docs/operations.md "Backup and restore"): a consistent copy of the SQLite store taken
// while a server serves DIR and writes to it (store/sqlite/backup.h), and its restore into an
// empty data directory that no server holds. On PostgreSQL both refuse, pointing to pg_dump and
// pg_restore. Every refusal is a message on stderr and a non-zero exit, and changes nothing.
#pragma once

#include <vector>

#include "app/config_command.h"

namespace pc {

std::vector<ConfigCommand> AddBackupCommands(CLI::App& app);

}  // namespace pc
