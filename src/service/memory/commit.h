// Commits a revision: one change (remember, revise, retire) or several (a flush), so that every
// revision is built in exactly one way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "service/memory/memory_service.h"
#include "store/store.h"

namespace pc {

struct OneChange {
  ChangeOp op = ChangeOp::kAdd;
  // add/revise: the new version (ids, version, previous, kind, text, hash, source refs, reason);
  // its revision and time are filled in here. retire: the unchanged current version.
  EntryVersion version;
  std::optional<std::string> from_version_id;  // revise and retire
  // add/revise: the new version's vector under `vector_profile` (empty profile: no embedder;
  // no vector: the embedder failed and the projection records it as missing).
  std::string vector_profile;
  std::optional<std::vector<float>> vector;
};

// Appends revision head + 1 of `memory` with these changes (each to a different entry),
// `lineage`, and the graph edges `edges` (each on a version these changes create). Must run inside
// `txn`. Returns the new revision's ref and fills in each change's version (revision, time).
// Consumes nothing: a Write callback that calls it may run again.
Result<MemoryRef> CommitChanges(WriteTxn& txn, const Artifact& memory, const std::string& actor,
                                const std::string& reason, const std::vector<std::string>& lineage,
                                std::vector<OneChange>& changes,
                                const std::vector<GraphEdge>& edges = {});

// One change, answered as a write (the new version and its citation).
Result<WriteOutcome> CommitOneChange(WriteTxn& txn, const Artifact& memory,
                                     const std::string& actor, const std::string& reason,
                                     const OneChange& change,
                                     const std::vector<GraphEdge>& edges = {});

// A committed change (CommitChanges filled it in), answered as a write at revision `ref`: its new
// version (moved out of `change`) and citation.
WriteOutcome ChangeOutcome(const MemoryRef& ref, OneChange& change);

}  // namespace pc
