// `powercontext verify` (issue 32): checks, on one read-only snapshot of either store, every
// invariant the design promises (DESIGN §2, docs/architecture.md "Storage") and reports each
// violation with its kind, scope and ids. It reads through store/verify_source.h and never
// writes; each backend opens its source (store/sqlite/sqlite_verify.h, store/postgres/pg_verify.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/verify_source.h"

namespace pc::verify {

enum class Severity {
  kViolation,  // the store breaks an invariant: corruption
  kWarning,    // incomplete, not wrong (vectors an embedder has yet to compute)
};

// One finding. `kind` is a stable snake_case name (docs/operations.md lists them); ids are empty
// (revision nullopt) where they do not apply.
struct Finding {
  std::string kind;
  Severity severity = Severity::kViolation;
  std::string scope_id, scope_key, artifact_id;
  std::optional<int64_t> revision;
  std::string entry_id, entry_version_id;
  std::string detail;  // one sentence: what was expected and what was found
};

struct Options {
  std::string scope;                 // a scope key or scp_… id; empty: every scope
  bool embedder_configured = false;  // missing vectors are then worth a warning
};

struct Report {
  std::string store;  // VerifySource::Describe()
  int64_t scopes = 0, artifacts = 0, revisions = 0, entry_versions = 0, audit_rows = 0;
  std::vector<Finding> findings;
  int64_t Count(Severity severity) const;
};

// NotFound when options.scope names no scope; other errors are the store's (a failed read).
// Violations are findings, never an error.
Result<Report> Verify(VerifySource& source, const Options& options);

}  // namespace pc::verify
