// The write gates (docs/write-gates.md) that every memory write passes besides validation:
//   reconcile: an active entry that nearly says the same (search/near_duplicate.h) is named in the
//     answer (warn: the write goes on; the caller may revise that entry instead) or refuses the
//     write (reject: 409 near_duplicate with its citation). Off: nothing is looked up.
//   evidence: a write with no evidence is a hypothesis; a scope that requires evidence refuses it.
// Each outcome is recorded: beside the change in its audit row, or, for a refusal, in an audit
// row of its own (a refused write changes nothing else).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "service/core/scope_ref.h"
#include "service/memory/write_policy.h"
#include "store/store.h"

namespace pc {

struct NearDuplicate {
  Citation citation;
  std::string text;
  double similarity = 0;         // lexical, near_duplicate.h
  std::optional<double> cosine;  // when both have a vector of the memory's profile
};

// A reconcile's candidates (ReadTxn::SharedTermCandidates): each query term's newest entries it
// reads at most, and the entries sharing the most terms it compares; the near-duplicates it
// reports at most. Chosen by measurement (bench/reconcile_bench, lookup recall).
inline constexpr int kReconcilePerTerm = 128;
inline constexpr int kReconcileCandidates = 24;
inline constexpr int kReconcileRecent = 8;  // the memory's newest changes, compared too
inline constexpr size_t kMaxNearDuplicates = 3;
inline constexpr size_t kReconcilePhrases = 16;  // query terms a reconcile searches with at most
// A lookup made before its write is brought to the head when at most this many revisions and
// entries changed in between (ReconcileLookup); after more, the write looks up afresh.
inline constexpr int64_t kReconcileCatchUp = 64;

// The terms a reconcile looks candidates up by: the text's distinct plain words and CJK characters
// (no identifiers, no CJK bigrams), at most kReconcilePhrases of them, longest first.
TextQuery ReconcileQuery(const std::string& text);
// The same from the text's SimilarityTerms, when the caller has them already.
TextQuery ReconcileQuery(const std::vector<std::string>& similarity_terms);

// The active head entries of `memory` that nearly say `text`, most similar first; `skip_entry`
// (the entry a revise replaces) is left out. `vector` / `profile`: the text's vector, if any.
Result<std::vector<NearDuplicate>> FindNearDuplicates(
    ReadTxn& txn, const Artifact& memory, const std::string& text,
    const std::optional<std::vector<float>>& vector, const std::string& profile,
    const std::string& skip_entry);

// A reconcile's lookup made before its write, on a snapshot of the memory at `revision` (0: none
// made: the scope's policy is off, the memory is empty, or the read failed). `near`: every
// near-duplicate it found there, not yet cut to kMaxNearDuplicates. The write's transaction then
// only compares the entries that revisions (revision, head] changed, so the lookup's cost stays
// out of the serialized write: a group commit runs its writes one after another (issue 28).
struct ReconcileLookup {
  std::string artifact_id;
  int64_t revision = 0;
  std::vector<NearDuplicate> near;
};
// What a write will reconcile: the text, its vector (if any) and the entry it revises (if any).
struct ToReconcile {
  const std::string& text;
  const std::optional<std::vector<float>>& vector;
  const std::string& profile;
  std::string skip_entry;
};
// Each write's lookup, all on one snapshot of the named scope's memory, in order; none made
// (revision 0) where the store's reads before a write do not pay (Store::ReadsBeforeWritesPay).
std::vector<ReconcileLookup> LookUpBeforeWrite(Store& store, const ScopeRef& scope,
                                               const WritePolicy& defaults,
                                               const std::vector<ToReconcile>& writes);

// Inside the write: brings each lookup (made before it, write_gates.h) to the memory's head by the
// entries changed since its revision, read once per revision, not once per write; a lookup already
// at the head is left as it is. One that cannot be (another memory, more than kReconcileCatchUp
// changes) becomes "none made" (revision 0), and its write looks up afresh.
Status CatchUpLookups(ReadTxn& txn, const Artifact& memory, const std::vector<ToReconcile>& writes,
                      std::vector<ReconcileLookup>& lookups);

// The reconcile gate inside a write: nothing with kOff; the near-duplicates with kWarn (noted in
// the transaction's audit trail); a near_duplicate refusal with kReject. With `before` (a lookup
// of this memory at a revision up to the head), the lookup is brought to the head by the entries
// changed since: the entries written meanwhile are compared too; without, it is made here.
Result<std::vector<NearDuplicate>> Reconcile(WriteTxn& txn, ReconcilePolicy policy,
                                             const Artifact& memory, const std::string& text,
                                             const std::optional<std::vector<float>>& vector,
                                             const std::string& profile,
                                             const std::string& skip_entry,
                                             const ReconcileLookup* before = nullptr);

// A refused write's own audit row (result "refused", the refusal's code and details as targets),
// best-effort: the refusal is the answer either way. `scope_id`: internal id, or empty.
void RecordRefusal(Store& store, const std::string& scope_id, const Status& refusal);

// Refusals of the gates: their codes, so a caller can tell them from other failures.
bool IsGateRefusal(const Status& s);

}  // namespace pc

namespace pc {

// Evidence a caller gives a remember or revise (our field `evidence`, up to 32 items): an
// http(s) URL, a source of the scope (the id it was captured under), or a memory citation of the
// scope. Stored in the version's source_refs as "source/ID@POSITION", "url:URL" or the citation
// string; an entry whose version has none is a hypothesis.
inline constexpr size_t kMaxEvidence = 32;
inline constexpr size_t kMaxEvidenceBytes = 2048;
inline constexpr const char* kUrlEvidencePrefix = "url:";
// The shape of each item (before any store read): InvalidArgument naming evidence[i].
Status CheckEvidence(const std::vector<std::string>& evidence);
// The stored form of each item, resolved in the scope of `memory` (422 for what does not resolve).
Result<std::vector<std::string>> ResolveEvidence(ReadTxn& txn, const Artifact& memory,
                                                 const std::vector<std::string>& evidence);
// Whether a version with these source_refs is a hypothesis: nothing it stands on is recorded.
inline bool IsHypothesis(const std::vector<std::string>& source_refs) {
  return source_refs.empty();
}

}  // namespace pc
