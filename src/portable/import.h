// `powercontext import` (issue 32, docs/export.md): a file of the portable format into an empty
// store of either kind. In three steps, the first two here:
//
// 1. ReadExportFile reads the whole file and refuses it, before anything is written anywhere,
//    unless it understands every byte: the format and its version, exactly this build's tables,
//    columns and types, every row's table, width and value types, rows in table order, and a
//    trailer whose row count and SHA-256 match what came before it.
// 2. Stage writes its rows into a SQLite store of their own (a staging directory), a chunk per
//    transaction, each chunk's commit recording how far it got: killed, the next run of the same
//    file resumes after the last chunk that committed (another file starts the staging over).
//    Then the full-text projection is built, and the staged store is checked with `verify`
//    (src/verify/): a file whose rows break an invariant goes no further.
// 3. The caller puts the staged store in place: on SQLite as `restore` does (one rename into an
//    empty data directory), on PostgreSQL with `migrate`'s verified all-or-nothing copy
//    (pg_import.h). The target is untouched until then.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace pc::portable {

// What ReadExportFile found in a file it understood whole.
struct ExportFile {
  std::string path;
  std::string sha256;  // of every byte before the trailer, as the trailer says
  int format_version = 0;
  std::string from_store;  // "sqlite" or "postgresql"
  int from_schema_version = 0;
  std::string exported_at;
  std::string scope_id, scope_key;  // empty: the whole store
  int64_t rows = 0;
  std::vector<std::pair<std::string, int64_t>> tables;  // rows, table by table
};

// InvalidArgument naming the line and what is wrong with it; NotFound when there is no file.
Result<ExportFile> ReadExportFile(const std::string& path);

struct StageOptions {
  // The staging directory: new, empty, or an earlier import's staging (marked so); anything else
  // is refused. Its powercontext.db is the staged store.
  std::string dir;
  int64_t chunk_rows = 5000;  // rows per committed chunk
  // Told of each step as it starts, for a long import's progress.
  std::function<void(const std::string&)> progress;
  // Tests only: called after each chunk commits with the rows staged so far; an error stops the
  // import there, as a kill would.
  std::function<Status(int64_t)> after_chunk;
};

struct StageReport {
  std::string db_path;           // the staged store, ready to be put in place
  int64_t resumed_after = 0;     // rows an earlier run had staged (0: a fresh start)
  bool discarded_other = false;  // an unfinished staging of another file was thrown away
  int64_t warnings = 0;          // verify's warnings (missing vectors)
};

// Errors: InvalidArgument when the file is at fault (a row the schema refuses, rows that break an
// invariant once staged: verify's first findings in the message, the file changed since it was
// read; the staging is removed), or when `dir` is not a staging directory; Internal for a failed
// write (a full disk): the staging is kept for a resume.
Result<StageReport> Stage(const ExportFile& file, const StageOptions& options);

// Removes what Stage made in `dir` (its store and its mark, then the directory if nothing else is
// in it); a directory Stage did not make is left alone.
void RemoveStaging(const std::string& dir);

// Whether the target is empty (an import never merges): Conflict naming where the data is, or
// Ok. SQLite: the store of `data_dir`, absent or without a row; PostgreSQL: the database, without
// our schema or without a row.
Status CheckSqliteTargetEmpty(const std::string& data_dir, bool& exists);
Status CheckPostgresTargetEmpty(const std::string& url);

}  // namespace pc::portable
