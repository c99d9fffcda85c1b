// The portable export format (docs/export.md): a store, or one scope of it, as JSON Lines with its
// complete history. Line 1 is the header: the format's name and version, where it came from, and
// every table with its columns and their types (store/table_catalog.h); then one line per row,
// tables in foreign-key order; the last line is the trailer: the rows written and the SHA-256 of
// every byte before it. Identities are kept exactly (ids, revision numbers, source positions,
// document numbers, audit sequence numbers), so a citation written before an export reads the same
// bytes after an import, on either store.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace pc::portable {

inline constexpr const char* kFormatName = "powercontext-export";
// 2 added skill_contents (managed Skills); 3 the Handoff Report catalog (report_*); 4 workspace
// bindings and the Activity Event log (report_workspace_bindings, report_activit*). A build reads
// its own version and every older one (a table added since is absent from an older file, as if
// empty).
inline constexpr int kFormatVersion = 4;
inline constexpr int kOldestFormatVersion = 1;

// The header's "tables" of a format version: this build's tables that version has, with their
// columns and types. An import reads a file only when its header lists exactly these.
nlohmann::ordered_json TablesJson(int format_version = kFormatVersion);

// Text for one line: UTF-8 as it is (no \u escapes), no spaces.
std::string Line(const nlohmann::ordered_json& value);

// Bytes as lower-case hex, and back (nullopt: not hex of whole bytes).
std::string ToHex(const void* data, size_t size);
std::optional<std::string> FromHex(const std::string& hex);

}  // namespace pc::portable
