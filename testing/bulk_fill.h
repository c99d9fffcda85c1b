// Filling a memory fast, for benchmarks and tests: through the store's own commit path (the same
// rows a write makes, FTS and vectors included), `batch` adds per revision (1,000 by default; 1 is
// a memory written as remembers write it, one revision per entry). The memory's head must be 0 (a
// new scope).
#pragma once

#include <functional>
#include <string>

#include "common/clock.h"
#include "common/ids.h"
#include "model/canonical.h"
#include "search/hash_embedder.h"
#include "store/store.h"

namespace pc {

inline Status FillMemory(Store& store, const Scope& scope, int64_t entries,
                         const std::function<std::string(int64_t)>& text, HashEmbedder* embedder,
                         int batch = 1000) {
  int64_t made = 0, revision = 0;
  while (made < entries) {
    NewRevision rev;
    rev.info.memory = MemoryRef{kMemoryFamily, scope.memory_artifact_id, ++revision};
    rev.info.actor = "bench";
    rev.info.created_at_ms = NowMillis();
    if (embedder) rev.vector_profile = embedder->profile().Key();
    for (int i = 0; i < batch && made < entries; ++i, ++made) {
      EntryVersion v;
      v.entry_id = NewId(kEntryPrefix);
      v.entry_version_id = NewId(kEntryVersionPrefix);
      v.version = 1;
      v.kind = "fact";
      v.text = text(made);
      v.content_hash = ContentHash(v.kind, v.text).value();
      v.created_by_revision = revision;
      v.created_at_ms = rev.info.created_at_ms;
      if (embedder) rev.vectors[v.entry_version_id] = embedder->EmbedOne(v.text);
      rev.info.changes.push_back({ChangeOp::kAdd, v.entry_id, std::nullopt, v.entry_version_id});
      rev.manifest.push_back({v.entry_id, v.entry_version_id, true});
      rev.new_versions.push_back(std::move(v));
    }
    PC_RETURN_IF_ERROR(store.Write(Actor{"local", "bulk_fill", ""},
                                   [&](WriteTxn& txn) { return txn.CommitRevision(rev); }));
  }
  return Status::Ok();
}

}  // namespace pc
