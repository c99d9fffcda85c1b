// Files that must be on disk before anyone is told they are (backups, restored stores): fsync of
// a file and of the directory that names it, a copy that is synced, and a rename that never
// replaces what is there unless asked to.
#pragma once

#include <string>

#include "common/status.h"

namespace pc {

// fsync(2) of the file or directory at `path`.
Status SyncPath(const std::string& path);

// fsync(2) of the directory holding `path` (a rename or a new name is durable only then).
Status SyncParentDir(const std::string& path);

// Copies `from` to `to` (created, must not exist) and syncs it.
Status CopyFileSynced(const std::string& from, const std::string& to);

// Renames `from` to `to`; unless `replace`, InvalidArgument when `to` exists (checked by the
// kernel, not before: a file made meanwhile is not replaced either). Syncs `to`'s directory.
Status RenameDurably(const std::string& from, const std::string& to, bool replace);

// Writes `text` to `path` whole or not at all: a synced temporary file beside it, renamed over it.
Status WriteFileDurably(const std::string& path, const std::string& text);

}  // namespace pc
