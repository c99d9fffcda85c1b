// The SQLite schema and its migrations, applied in order; PRAGMA user_version records the last one.
#pragma once

#include "common/status.h"
#include "store/sqlite/db.h"

namespace pc::sqlite {

// The schema version this build writes.
int LatestSchemaVersion();

// Brings the database up to LatestSchemaVersion() in one transaction. Refuses a database written
// by a newer build.
Status Migrate(Db& db);
// Empties the full-text tables and builds them again from the rows they project (an import
// writes the rows, then this). Inside the caller's transaction.
Status RebuildTextProjection(Db& db);
// Up to `target` only (tests build databases as older builds wrote them).
Status MigrateTo(Db& db, int target);

}  // namespace pc::sqlite
