// The PostgreSQL store's schema (issue 15): migrations in the same append-only style as SQLite's
// (store/sqlite/schema.cc), recorded in the database's schema_migrations table. Several servers
// may start at once: the migration runs in one transaction under a transaction-scoped advisory
// lock, so the first migrates and the others then find nothing to do. A database whose schema is
// newer than this build's is refused, naming both versions.
#pragma once

#include "common/status.h"
#include "store/postgres/pg_conn.h"

namespace pc::pg {

// The newest schema version this build knows.
int LatestSchemaVersion();
// Brings the database to LatestSchemaVersion(); returns the version it found.
Result<int> Migrate(Conn& conn);

}  // namespace pc::pg
