// The reconcile gate's reads (PgTxn::SharedTermCandidates), kept by a server between writes, for
// a memory as of one revision of it: each looked-up term's newest `cap` active documents (doc
// descending), and active documents' versions (the candidates'). On PostgreSQL each posting is an
// index probe and a heap fetch in the database, ~2,000 a remember, and the candidates' versions
// ~25 more of each: most of a remember's database CPU (docs/benchmarks.md).
//
// Exact, as SQLite's GateReads: the lists of a memory stand for one head revision. A lookup on a
// snapshot at a later head first brings them there from the documents the revisions between
// changed (revision_changes: every change to a memory's full text is a revision's), each taken
// with its terms at the head and whether it is active: a document leaves the lists whose term it
// no longer holds (a full list that loses one is forgotten: its next document is unknown) and
// joins those it sorts into, and its version is kept as the head's (or dropped, retired). Several
// servers each keep their own; only committed revisions are
// followed, so nothing a rolled-back write did is ever kept. Bounded: everything is forgotten at
// once past kMaxListed documents in lists, and a memory whose head moved more than kMaxCatchUp
// revisions starts again. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace pc::pg {

class GateLists {
 public:
  static constexpr size_t kMaxListed = size_t{1} << 22;  // documents in lists, ~8 bytes each
  static constexpr size_t kTermCost = 16;                // a term's key and nodes, in documents
  static constexpr int64_t kMaxCatchUp = 256;            // revisions brought forward at once

  // A document a revision changed, as of the revision the lists are brought to.
  struct Change {
    int64_t doc = 0;
    bool active = false;
    std::vector<std::string> terms;  // its index terms when active, sorted, no repeats
    EntryVersion version;            // when active
  };

  GateLists();
  ~GateLists();
  GateLists(const GateLists&) = delete;
  GateLists& operator=(const GateLists&) = delete;

  // The revision `memory`'s lists stand for, or -1 when none are kept.
  int64_t Revision(const std::string& memory) const;
  // Brings `memory`'s lists from revision `from` (Revision's answer; -1: start empty) to `to`
  // with what the revisions between changed. False when another lookup moved them meanwhile to
  // anything but `to` (they stay as they are; read the index instead).
  bool Advance(const std::string& memory, int64_t from, int64_t to,
               const std::vector<Change>& changes);
  // `terms`' lists read with `cap` at revision `at`: found[i] says whether lists[i] is kept.
  // Nothing when `memory`'s lists are not at `at`.
  void Find(const std::string& memory, int64_t at, size_t cap,
            const std::vector<std::string>& terms, std::vector<std::vector<int64_t>>& lists,
            std::vector<bool>& found) const;
  // What a read at revision `at` found for `term`: its newest `cap` active documents, descending
  // (all of them when fewer). Kept only while `memory`'s lists are at `at`.
  void Put(const std::string& memory, int64_t at, size_t cap, const std::string& term,
           std::vector<int64_t> docs);
  // Active documents' versions at revision `at`: versions[i] is docs[i]'s, or null when not kept
  // (valid while the lists are not changed: under the caller's use, copy what is needed).
  void FindVersions(const std::string& memory, int64_t at, const std::vector<int64_t>& docs,
                    std::vector<std::optional<EntryVersion>>& versions) const;
  // What a read at revision `at` found: active documents and their versions.
  void PutVersions(const std::string& memory, int64_t at,
                   std::vector<std::pair<int64_t, EntryVersion>> versions);
  void Clear();
  size_t listed() const;

 private:
  struct Memory;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<Memory>> memories_;
  size_t listed_ = 0;  // documents in all lists, and kTermCost for each list
};

}  // namespace pc::pg
