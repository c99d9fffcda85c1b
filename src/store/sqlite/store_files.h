// The files of a SQLite data directory, named once for the store, the read-only tools (verify,
// backup) and restore (docs/operations.md).
#pragma once

namespace pc::sqlite {

inline constexpr const char* kDbFileName = "powercontext.db";
// Beside the database and part of it while it is open: its log and shared memory (WAL), or its
// rollback journal.
inline constexpr const char* kDbCompanionSuffixes[] = {"-wal", "-shm", "-journal"};
// Tells the servers on this directory to reread the tokens (sqlite_store.h).
inline constexpr const char* kTokensStampName = "tokens.stamp";
// The saved vector graphs: caches a server rebuilds from the vectors in the database.
inline constexpr const char* kAnnDirName = "ann";

}  // namespace pc::sqlite
