// The handoff's rows (migration 6): one content row per revision, its claims (state statements,
// the next action, omissions) and their citations. Shared by SqliteTxn and the migration that
// turns the free-text handoffs of schema 4 into structured ones (docs/handoff.md).
#pragma once

#include "model/types.h"
#include "store/sqlite/db.h"

namespace pc::sqlite {

// Writes `content` as revision `revision` of handoff `artifact_id` (the revision row is the
// caller's).
Status WriteHandoffContent(Db& db, const std::string& artifact_id, int64_t revision,
                           const HandoffContent& content);
// Migration 6: every free-text revision (handoff_versions, handoff_items) as structured content.
// The legacy rows stay, read-only, as the record of what was written.
Status MigrateLegacyHandoffs(Db& db);
// The structured form of one free-text revision (exposed for tests).
struct LegacyHandoff {
  std::string from, to, summary, state;
  std::vector<std::string> decisions, next_steps, open_questions;
};
HandoffContent LegacyHandoffContent(const LegacyHandoff& old, const MemoryRef& itself);

}  // namespace pc::sqlite
