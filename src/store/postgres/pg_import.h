// Moving a SQLite store into PostgreSQL (issue 15; `powercontext migrate`, docs/deploy.md).
//
// Every row of the data directory's database is copied with every identity unchanged — scope,
// artifact, entry and version ids, revision numbers, source positions, token rows (secret hashes
// only), audit sequence numbers — and PostgreSQL's full-text projection is built from the copied
// rows as the store's writes would have built it (PgTxn::RebuildTextIndex).
//
// All or nothing: the source is read in one SQLite read transaction (one snapshot; the database
// is opened read-only, so a server may keep running on it, though its writes after the snapshot
// are not copied), and the target is written in ONE PostgreSQL transaction. A target that holds
// any data is refused before anything is written, never merged into. Before COMMIT, in that same
// transaction, the copy is verified through both stores' own read paths (ReadTxn): every
// revision's full manifest of every memory, every entry version, every revision's record, every
// handoff, every source, every vector row, the tokens, the audit log, the full-text projection's
// consistency, and row counts of every table. Any
// difference rolls the whole copy back.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "store/postgres/pg_conn.h"

namespace pc::pg {

struct ImportOptions {
  std::string from_dir;  // the SQLite data directory (its powercontext.db), or that file
  std::string to_url;    // postgresql://… (migrated to the latest schema first)
  // Told of each step as it starts ("copying entry_versions", …), for a long migration's progress.
  std::function<void(const std::string&)> progress;
  // Tests only: runs inside the transaction after the copy and before the verification (to show
  // that a copy that does not verify is rolled back).
  std::function<Status(Conn&)> before_verify;
};

struct ImportReport {
  std::string source_path;  // DIR/powercontext.db
  int source_schema_version = 0;
  int target_schema_found = 0;  // the target's schema version before this run (0: empty database)
  // Rows copied, table by table, in the order they were copied.
  std::vector<std::pair<std::string, int64_t>> tables;
  // SQLite's free-text handoffs from before its migration 6: converted then into the structured
  // rows (handoff_contents …), which are copied; these read-only originals are not.
  int64_t legacy_handoff_versions = 0;
  int64_t legacy_handoff_items = 0;
  // The full-text projection built: indexes (memories, source logs) and their documents.
  int64_t text_memories = 0, text_memory_docs = 0;
  int64_t text_source_logs = 0, text_source_docs = 0;
  // What the verification compared (all equal, or the import failed).
  struct Verified {
    int64_t artifacts = 0;
    int64_t revisions = 0;       // revision records (memory and handoff)
    int64_t manifests = 0;       // memory revisions whose whole manifest was compared
    int64_t manifest_lines = 0;  // manifest lines compared across those
    int64_t entry_versions = 0;
    int64_t handoffs = 0;
    int64_t sources = 0;
    int64_t vectors = 0;  // entry_vectors rows (vector bytes included)
    int64_t tokens = 0;
    int64_t audit_rows = 0;
    int64_t tables = 0;  // tables whose row counts were compared
  } verified;
};

// Copies, builds the full-text projection, verifies and commits; or fails having changed nothing
// in the target (beyond bringing its schema up to date). Errors: NotFound (no store in from_dir),
// InvalidArgument (a URL that is not postgresql://, a source schema this build cannot read),
// ProviderUnavailable (PostgreSQL unreachable), Conflict (the target holds data), Internal (the
// copy did not verify, or a database error).
Result<ImportReport> ImportSqlite(const ImportOptions& options);

}  // namespace pc::pg
