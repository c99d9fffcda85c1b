// The reconcile gate's reads (PgTxn::SharedTermCandidates), kept by a server between writes, for
// a memory as of one revision of it: each looked-up term's newest `cap` active documents (doc
// descending), active documents' versions (the candidates'), and the documents of the memory's
// newest changes (the recent candidates). On PostgreSQL each posting is an index probe and a heap
// fetch in the database, ~2,000 a remember, and the candidates' versions ~25 more of each: most
// of a remember's database CPU (docs/benchmarks.md).
//
// Exact, as SQLite's GateReads: the lists of a memory stand for one head revision. A lookup on a
// snapshot at a later head first brings them there from the documents the revisions between
// changed (revision_changes: every change to a memory's full text is a revision's), each taken
// with its terms at the head and whether it is active: a document leaves the lists whose term it
// no longer holds (a full list that loses one is forgotten: its next document is unknown) and
// joins those it sorts into, and its version is kept as the head's (or dropped, retired). Several
// servers each keep their own; only committed revisions are followed, so nothing a rolled-back
// write did is ever kept. A revision this server wrote may be noted from what it wrote (Note),
// and is then followed without being read. Bounded: a memory keeps at most a quarter of the bound
// in versions (its oldest documents' dropped first: the lists hold each term's newest, so the
// newest documents are the next candidates); past the bound, the memories least recently looked up
// are forgotten, whole, until the rest fit. A memory whose head moved more than kMaxCatchUp
// revisions starts again. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
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
  // Documents in lists (~8 bytes each) and versions (counted by their bytes) in all memories.
  static constexpr size_t kMaxListed = size_t{1} << 22;
  static constexpr size_t kTermCost = 16;      // a term's key and nodes, in documents
  static constexpr int64_t kMaxCatchUp = 256;  // revisions brought forward at once
  static constexpr std::chrono::milliseconds kClaimWait{50};
  static constexpr size_t kMaxNoted = 64;  // revisions noted ahead of a memory's lists (Note)

  // A document a revision changed, as of the revision the lists are brought to.
  struct Change {
    int64_t doc = 0;
    bool active = false;
    std::vector<std::string> terms;  // its index terms when active, sorted, no repeats
    EntryVersion version;            // when active
  };

  explicit GateLists(size_t max_listed = kMaxListed,
                     std::chrono::milliseconds claim_wait = kClaimWait);
  ~GateLists();
  GateLists(const GateLists&) = delete;
  GateLists& operator=(const GateLists&) = delete;

  // The revision `memory`'s lists stand for, or -1 when none are kept.
  int64_t Revision(const std::string& memory) const;
  // Revision(memory), for a lookup about to read the changes that bring the lists to `to` and
  // Advance them (or Unclaim, failing): concurrent lookups at one new head would each read the
  // same changes, and only the first Advance would use them (~60% of the catch-ups, measured). So
  // while another lookup reads them up to `to` or before, this one waits for it (at most
  // kClaimWait, then reads them alongside) and answers where the other left them; a lookup at an
  // older snapshot does not wait. A lookup that claims first follows the revisions noted
  // (Note) from where the lists stand, up to `to`, and answers where they then stand.
  int64_t Claim(const std::string& memory, int64_t to);
  void Unclaim(const std::string& memory, int64_t to);
  // Brings `memory`'s lists from revision `from` (Claim's answer; -1: start empty) to `to`
  // with what the revisions between changed, and `recent`: the documents of their newest
  // `recent_cap` changes (one per revision_changes row, newest first; 0: not read, the kept ones
  // are forgotten). False when another lookup moved them meanwhile to anything but `to` (they stay
  // as they are; read the index instead).
  bool Advance(const std::string& memory, int64_t from, int64_t to,
               const std::vector<Change>& changes, const std::vector<int64_t>& recent = {},
               size_t recent_cap = 0);
  // A revision this server committed, known from what it wrote (PgStore notes it once the commit
  // is durable): kept beside `memory`'s lists while they stand before it, and followed as
  // Advance would follow the changes read from the database when a lookup claims a head at or
  // past it (Claim), without reading them; its newest changes are its own, the last first.
  // The lists do not move here: a lookup already running on an older snapshot would find them
  // past its head and read the index instead, whole (tried: one scope, 16 writers, 3× the term
  // lists' read time and 5× the candidates' reads). Nothing is kept when no lists are (the next
  // lookup reads what it needs).
  void Note(const std::string& memory, int64_t revision, const std::vector<Change>& changes);
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
  // The documents of the memory's newest `cap` changes at revision `at` (revision_changes
  // rows, newest first: a document changed twice is there twice), when kept; and what a read
  // found.
  bool FindRecent(const std::string& memory, int64_t at, size_t cap,
                  std::vector<int64_t>& docs) const;
  void PutRecent(const std::string& memory, int64_t at, size_t cap, std::vector<int64_t> docs);
  void Clear();
  size_t listed() const;

 private:
  struct Noted;
  struct Memory;
  // Memories least recently looked up forgotten until what is listed fits the bound.
  void Fit();
  void Unclaimed(const std::string& memory, int64_t to);  // under mu_
  const size_t max_listed_;
  const std::chrono::milliseconds claim_wait_;
  mutable std::mutex mu_;
  std::condition_variable caught_up_;  // a claim ended
  std::unordered_map<std::string, std::unique_ptr<Memory>> memories_;
  size_t listed_ = 0;           // documents in all lists, kTermCost for each list, versions' units
  mutable uint64_t ticks_ = 0;  // lookups so far: when each memory was last used
};

}  // namespace pc::pg
