// MEMORY.md, the file agents load at start-up (seed 002, "solution 2"): exported from a scope as a
// pointer-only index — a table of topics with counts and pointers to per-topic files, and "Recent
// (last 5)" — under 5,000 characters (enforced: what does not fit moves behind a pointer), with
// one file per topic (memory/<kind>.md) holding every active entry with its citation. Imported
// back (ours, or anyone's 92,000-character MEMORY.md and its topic files): each file kept as
// Sources, and entries made through the extraction provider's flush, or without one, one entry
// per bullet or table row, deduplicated by the server. Works over CallRoute: a server, or a data
// directory in process.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "client/call_route.h"
#include "common/status.h"

namespace pc {

inline constexpr size_t kMemoryMdMaxChars = 5000;  // the seed's hard limit for the index
inline constexpr size_t kMemoryMdRecent = 5;

struct MemoryMdExport {
  std::map<std::string, std::string> files;  // path under the output folder → its text
  int64_t revision = 0;                      // the memory revision exported
  size_t index_chars = 0;                    // MEMORY.md's length in characters
  size_t entries = 0;
};

// Deterministic: the same revision gives byte-identical files.
Result<MemoryMdExport> ExportMemoryMd(const CallRoute& call, const std::string& scope);
Status WriteMemoryMd(const MemoryMdExport& e, const std::string& out_dir);

struct MemoryMdImport {
  size_t files = 0, sources_new = 0, sources_existing = 0;
  std::string mode;  // "flush" (the extraction provider) or "bullets" (one entry per item)
  size_t entries_added = 0, duplicates = 0, skipped = 0;
  std::vector<std::string> notes;
};

// `path`: a MEMORY.md (its memory/ folder beside it is read too) or a folder holding one.
Result<MemoryMdImport> ImportMemoryMd(const CallRoute& call, const std::string& scope,
                                      const std::string& path);

// The items of a Markdown memory file: bullets (with their continuation lines) and table rows,
// each with the kind its section suggests. Our own index (MEMORY.md as exported) has none.
struct MemoryMdItem {
  std::string kind, text;
};
std::vector<MemoryMdItem> MemoryMdItems(const std::string& markdown,
                                        const std::string& default_kind);

}  // namespace pc
