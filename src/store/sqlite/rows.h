// Row helpers shared by SqliteTxn's files: the entry version columns and how lists are stored.
#pragma once

#include <string>
#include <vector>

#include "model/types.h"
#include "store/sqlite/db.h"
#include "store/store_rows.h"  // JoinLines, SplitLines

namespace pc::sqlite {

// The columns of entry_versions (as v) that ReadVersion reads, in order.
inline constexpr const char* kVersionColumns =
    "v.entry_version_id, v.entry_id, v.version, v.previous_version_id, v.kind, v.text, "
    "v.content_hash, v.source_refs, v.created_by_revision, v.reason, v.created_at, v.valid_until";
inline constexpr int kVersionColumnCount = 12;

EntryVersion ReadVersion(const Stmt& s, int at);
// Column 0 is m.active (or any 0/1 activity), then the version columns.
ManifestItem ReadManifestItem(const Stmt& s);

}  // namespace pc::sqlite
