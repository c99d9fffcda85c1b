// The tables that hold a store's data, named alike in both stores (store/sqlite/schema.cc,
// store/postgres/pg_schema.cc), in foreign-key order: what `migrate` copies (pg_import.cc) and
// what `export` writes and `import` reads (portable/, docs/export.md). The full-text projection
// (SQLite's FTS5 tables, PostgreSQL's text_* tables) is not among them: each store builds its own
// from these rows. Neither are the read-only originals of SQLite's old free-text handoffs.
#pragma once

#include <string>
#include <vector>

namespace pc {

// How a column's values are kept (NULL is NULL in each).
enum class StoreColumn { kText, kInt, kBool, kBlob };

struct StoreTable {
  const char* name;
  const char* select;   // SQLite expressions, in the order of `columns`
  const char* columns;  // PostgreSQL's columns: the names export and import use
  std::vector<StoreColumn> types;
  const char* order;      // SQLite ORDER BY: the primary key (rowid tables: the rowid)
  bool identity = false;  // PostgreSQL fills a GENERATED ALWAYS column (OVERRIDING SYSTEM VALUE)
  // PostgreSQL ORDER BY: the primary key, or for SQLite's rowid tables creation order (or the
  // id); an export of each store lists a table's rows alike, not always in the same order.
  const char* pg_order = "";
  // The rows of one scope: a condition in the dialect both stores share, `{scope}` standing for
  // the scope's id ("1 = 0": server-wide rows no scope owns, the tokens).
  const char* scope_filter = "";
  // A SQLite column the PostgreSQL store has not, and the value an INSERT gives it (its
  // parameters are the row's, ?1 the first column; a value that cannot be found fails the INSERT
  // with "datatype mismatch" rather than letting SQLite choose one).
  const char* sqlite_extra_column = nullptr;
  const char* sqlite_extra_value = nullptr;
  // The export format version that added the table (portable/format.h): a file of an older
  // version has none of its rows, and its header does not list it.
  int since_format = 1;
};

const std::vector<StoreTable>& StoreTables();

// `columns` (or `select`) split at its commas, each name trimmed.
std::vector<std::string> SplitColumns(const char* list);

// "text", "int", "bool", "bytes": a column's type as docs/export.md names it.
const char* ColumnTypeName(StoreColumn type);

}  // namespace pc
