#include "service/commit.h"

#include "common/clock.h"

namespace pc {

Result<WriteOutcome> CommitOneChange(WriteTxn& txn, const Artifact& memory, const std::string& actor,
                                     const std::string& reason, OneChange change) {
  NewRevision rev;
  rev.info.memory = MemoryRef{memory.family, memory.artifact_id, memory.head_revision + 1};
  rev.info.actor = actor;
  rev.info.reason = reason;
  rev.info.created_at_ms = NowMillis();

  EntryVersion& v = change.version;
  const bool retire = change.op == ChangeOp::kRetire;
  if (!retire) {
    v.created_by_revision = rev.info.memory.revision;
    v.created_at_ms = rev.info.created_at_ms;
    rev.new_versions.push_back(v);
    if (change.vector) rev.vectors[v.entry_version_id] = std::move(*change.vector);
  }
  rev.vector_profile = change.vector_profile;
  Change c{change.op, v.entry_id, change.from_version_id, v.entry_version_id};
  rev.info.changes.push_back(c);
  rev.manifest.push_back(ManifestUpdate{v.entry_id, v.entry_version_id, !retire});
  PC_RETURN_IF_ERROR(txn.CommitRevision(rev));

  WriteOutcome out;
  out.memory = rev.info.memory;
  out.changed = true;
  out.citation = Citation{rev.info.memory, v.entry_id, v.entry_version_id};
  out.entry = std::move(v);
  out.active = !retire;
  out.change = std::move(c);
  return out;
}

}  // namespace pc
