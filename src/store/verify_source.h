// Read-only access to a store for `powercontext verify` (src/verify/): one consistent snapshot,
// opened by each backend (store/sqlite/sqlite_verify.h, store/postgres/pg_verify.h) beside a
// server that keeps serving, and never a write. The tables both stores share are read with SQL in
// the dialect both understand; the full-text projection, which each store keeps its own way, has
// a method of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

// A statement's rows, every value as text (nullopt: SQL NULL).
struct VerifyRows {
  std::vector<std::vector<std::optional<std::string>>> rows;
  size_t size() const { return rows.size(); }
  std::string Text(size_t row, size_t col) const { return rows[row][col].value_or(""); }
  int64_t Int(size_t row, size_t col) const;  // 0 for NULL
  bool IsNull(size_t row, size_t col) const { return !rows[row][col].has_value(); }
};

// One full-text document of a memory, as its store holds it.
struct VerifyTextDoc {
  std::string doc;       // the store's document number (SQLite: the FTS5 rowid)
  std::string entry_id;  // the memory's entry it stands for; empty: no entry of this memory
  std::string entry_version_id;
  bool retired = false;
  std::optional<std::string> text;  // the indexed text, where the store keeps it (SQLite)
  int64_t tokens = 0;               // the document length BM25 normalizes by
  std::string malformed;            // what is wrong with the row itself, if anything
};

// OK when a store at schema version `found` is this build's (`latest`); else InvalidArgument
// naming `what` and, for an older store, how to upgrade it (`upgrade`).
Status CheckVerifySchema(const std::string& what, int64_t found, int64_t latest,
                         const std::string& upgrade);

class VerifySource {
 public:
  virtual ~VerifySource() = default;
  // What was opened, fit to print (a PostgreSQL password redacted).
  virtual std::string Describe() const = 0;
  // One SELECT in the shared dialect: parameters $1, $2 … in order of first use; booleans
  // compared or returned as 0/1 (`CASE WHEN active THEN 1 ELSE 0 END`).
  virtual Result<VerifyRows> Query(const std::string& sql,
                                   const std::vector<std::string>& params = {}) = 0;
  // The memory's full-text documents: those of its entries, and any that claim the memory
  // without being one of its entries.
  virtual Result<std::vector<VerifyTextDoc>> TextDocs(const std::string& artifact_id) = 0;
  // Full-text documents that belong to no memory at all ("owner/doc" each).
  virtual Result<std::vector<std::string>> OrphanTextDocs() = 0;
};

}  // namespace pc
