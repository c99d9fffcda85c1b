#include "service/memory/commit.h"

#include "common/clock.h"

namespace pc {

Result<MemoryRef> CommitChanges(WriteTxn& txn, const Artifact& memory, const std::string& actor,
                                const std::string& reason, const std::vector<std::string>& lineage,
                                std::vector<OneChange>& changes,
                                const std::vector<GraphEdge>& edges) {
  NewRevision rev;
  rev.info.memory = MemoryRef{memory.family, memory.artifact_id, memory.head_revision + 1};
  rev.info.actor = actor;
  rev.info.reason = reason;
  rev.info.lineage = lineage;
  rev.info.created_at_ms = NowMillis();
  for (OneChange& change : changes) {
    EntryVersion& v = change.version;
    const bool retire = change.op == ChangeOp::kRetire;
    if (!retire) {
      v.created_by_revision = rev.info.memory.revision;
      v.created_at_ms = rev.info.created_at_ms;
      rev.new_versions.push_back(v);
      if (change.vector) rev.vectors[v.entry_version_id] = *change.vector;  // copied: may run again
    }
    if (!change.vector_profile.empty()) rev.vector_profile = change.vector_profile;
    rev.info.changes.push_back(
        Change{change.op, v.entry_id, change.from_version_id, v.entry_version_id});
    rev.manifest.push_back(ManifestUpdate{v.entry_id, v.entry_version_id, !retire});
  }
  for (GraphEdge e : edges) {
    e.revision = rev.info.memory.revision;
    rev.edges.push_back(std::move(e));
  }
  PC_RETURN_IF_ERROR(txn.CommitRevision(rev));
  return rev.info.memory;
}

Result<WriteOutcome> CommitOneChange(WriteTxn& txn, const Artifact& memory,
                                     const std::string& actor, const std::string& reason,
                                     const OneChange& change, const std::vector<GraphEdge>& edges) {
  std::vector<OneChange> one{change};
  PC_ASSIGN_OR_RETURN(MemoryRef ref, CommitChanges(txn, memory, actor, reason, {}, one, edges));
  return ChangeOutcome(ref, one[0]);
}

WriteOutcome ChangeOutcome(const MemoryRef& ref, OneChange& c) {
  WriteOutcome out;
  out.memory = ref;
  out.changed = true;
  out.citation = Citation{ref, c.version.entry_id, c.version.entry_version_id};
  out.active = c.op != ChangeOp::kRetire;
  out.change = Change{c.op, c.version.entry_id, c.from_version_id, c.version.entry_version_id};
  out.entry = std::move(c.version);
  return out;
}

}  // namespace pc
