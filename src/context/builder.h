// The prepared-context builder (DESIGN §5, invariant 11): from ranked candidates (the latest
// handoff, memory hits, experience hits), a plain, model-friendly block within a byte budget.
// Pure and deterministic: the same candidates and budget give byte-identical content.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pc {

// The limits of DESIGN §5.
inline constexpr size_t kMemoryCandidates = 16;     // coarse recall from memory search
inline constexpr size_t kExperienceCandidates = 8;  // coarse recall from the source log
inline constexpr size_t kMaxContextItems = 8;       // items in one prepared context, in all
inline constexpr size_t kMaxExperienceItems = 2;    // of which Experience
inline constexpr size_t kMaxItemBytes = 2000;       // one item's text, cut beyond (marked)
inline constexpr size_t kMaxContextBytes = 1024 * 1024;  // the largest max_bytes accepted
// An item is cut to fit the rest of the budget only if this much of its text remains.
inline constexpr size_t kMinCutItemBytes = 64;

enum class ContextItemType { kHandoff, kMemory, kExperience };
const char* ContextItemTypeName(ContextItemType t);

struct ContextCandidate {
  ContextItemType type = ContextItemType::kMemory;
  std::string ref;    // citation string, source ref, or handoff ref
  std::string label;  // the entry's kind, the source's kind; empty for a handoff
  std::string text;
  double score = 0;
};

struct ContextItem {
  ContextItemType type = ContextItemType::kMemory;
  std::string ref;
  size_t bytes = 0;  // of its text as included (cut or not)
  double score = 0;
  bool cut = false;
};

struct BuiltContext {
  std::string content;  // empty: nothing fitted (status "empty")
  std::vector<ContextItem> items;
};

// Candidates in priority order within each type (best first). Picks the handoff, then memory
// items leaving room for up to kMaxExperienceItems experience items, then experience, then more
// memory; drops near-duplicates (the same text after case and white-space folding as an item
// already picked, or contained in one); every item at most kMaxItemBytes; the whole content at most max_bytes, counted over the
// final text.
BuiltContext BuildContext(const std::vector<ContextCandidate>& candidates, size_t max_bytes);

}  // namespace pc
