// `powercontext export` (issue 32, docs/export.md): a store, or one scope, written as the
// portable format (portable/format.h) from one consistent snapshot, while servers keep serving
// and writing (SQLite: one read transaction on a read-only connection; PostgreSQL: one REPEATABLE
// READ, READ ONLY transaction). The file appears whole or not at all: written beside its name,
// synced, then renamed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace pc::portable {

struct ExportOptions {
  std::string store;     // "sqlite", or a postgresql:// URL
  std::string data_dir;  // the SQLite store's data directory
  std::string scope;     // a scope key or scp_… id; empty: the whole store
  std::string out;       // the file to write
  bool force = false;    // replace `out` if it exists
};

struct ExportReport {
  std::string from;  // the store read, fit to print
  int schema_version = 0;
  std::string scope_id, scope_key;                      // empty for the whole store
  std::vector<std::pair<std::string, int64_t>> tables;  // rows, table by table
  int64_t rows = 0, bytes = 0;
  std::string sha256;  // the trailer's
  // Not in the format: SQLite's read-only originals of handoffs written before its schema 6 (their
  // structured conversion, made when the store was upgraded, is exported).
  int64_t legacy_handoffs = 0;
};

// Errors: NotFound (no store, or no such scope), InvalidArgument (a store of another schema
// version, an unusable --out), ProviderUnavailable (PostgreSQL unreachable); nothing is written.
Result<ExportReport> Export(const ExportOptions& options);

}  // namespace pc::portable
