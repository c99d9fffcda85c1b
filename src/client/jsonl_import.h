// `powercontext import jsonl FILE --scope S`: entries from a file of JSON lines, each an object as
// POST /v1/memory/remember/batch takes an entry ({kind, text, reason?, evidence?}), written through
// that route in batches (one revision each; docs/api.md).
#pragma once

#include <cstdint>
#include <istream>
#include <string>

#include "client/call_route.h"
#include "common/status.h"

namespace pc {

// Entries per batch (the route's maximum), and the bytes of lines a batch carries at most (under
// the route's 8 MiB body limit with room for the JSON around them).
inline constexpr size_t kImportBatchEntries = 1000;
inline constexpr size_t kImportBatchBytes = 6 * 1024 * 1024;

struct JsonlImport {
  int64_t lines = 0;       // entries read (blank lines are skipped)
  int64_t batches = 0;     // requests sent
  int64_t added = 0;       // entries written
  int64_t duplicates = 0;  // entries already in the memory (or earlier in the file)
  int64_t revision = 0;    // the memory's revision after the last batch
};

// Reads every line first: a line that is not a JSON object is an InvalidArgument naming it, and
// nothing is sent. Then posts the batches in order; a batch the server refuses stops the import
// with its error, naming the file's line ("line 1234: …"): the batches before it are written (each
// its own revision), and running the import again after a fix adds only what is missing (an entry
// already there is a duplicate, which changes nothing).
Result<JsonlImport> ImportJsonl(const CallRoute& call, const std::string& scope, std::istream& in);

}  // namespace pc
