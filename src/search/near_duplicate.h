// Near-duplicate detection for the reconcile write gate (docs/write-gates.md): how much two
// statements say the same, from their text alone (and their vectors, when both have one).
// Deterministic (VersionSimilarityTerms keeps what it computed, nothing else).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pc {

// The lexical threshold of the gate, chosen by measurement (bench/reconcile_bench.cc on
// MADial-Bench and MemoryBank texts, docs/write-gates.md): at or above it two statements are
// reported as near-duplicates.
inline constexpr double kNearDuplicateThreshold = 0.6;
// The vector threshold: cosine similarity at or above it also counts (real embedders only; the
// offline hash embedder's cosine is lexical and adds nothing).
inline constexpr double kNearDuplicateCosine = 0.92;

// The terms a statement is compared by: folded words, and for Chinese every character and
// every pair of neighbouring characters; stop words and CJK function characters left out.
std::vector<std::string> SimilarityTerms(std::string_view text);
// Dice's coefficient of the two term sets, in [0, 1]: 1 for the same terms.
double TermSimilarity(const std::vector<std::string>& a, const std::vector<std::string>& b);
double TextSimilarity(std::string_view a, std::string_view b);

// SimilarityTerms of an entry version's text, kept by its id (search/version_terms.h): the gate
// compares every write with up to 32 candidates, most of them the same entries write after write.
std::shared_ptr<const std::vector<std::string>> VersionSimilarityTerms(
    const std::string& entry_version_id, std::string_view text);

}  // namespace pc
