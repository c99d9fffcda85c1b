// The prepared-context builder (DESIGN §5, invariant 11): from ranked candidates (the latest
// handoff, memory hits, experience hits), the content of a `powercontext.prepared-context.v1`
// (RFC 0028): a fixed trust preamble, then one JSON line between BEGIN/END markers holding every
// item with its exact reference, so nothing an item says can cross the data boundary. Within a
// byte budget counted over the whole content. Pure and deterministic: the same candidates and
// budget give byte-identical content.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pc {

// The limits of DESIGN §5.
inline constexpr size_t kMemoryCandidates = 16;     // coarse recall from memory search
inline constexpr size_t kExperienceCandidates = 8;  // coarse recall from the source log
inline constexpr size_t kMaxContextItems = 8;       // items in one prepared context, in all
inline constexpr size_t kMaxExperienceItems = 2;    // of which Experience
inline constexpr size_t kMaxItemBytes = 2000;       // one item's text, cut beyond (marked)
// max_bytes: the spec's range and default (PrepareContextRequest); configuration cannot relax it.
inline constexpr size_t kMinContextBytes = 512;
inline constexpr size_t kMaxContextBytes = 32768;
inline constexpr size_t kDefaultContextBytes = 8000;
inline constexpr const char* kPreparedContextSchema = "powercontext.prepared-context.v1";
// An item is cut to fit the rest of the budget only if this much of its text remains.
inline constexpr size_t kMinCutItemBytes = 64;
// The mark that ends a cut item's content (counted in its bytes).
inline constexpr std::string_view kContextCutMark = "\u2026";

enum class ContextItemType { kHandoff, kMemory, kExperience };
const char* ContextItemTypeName(ContextItemType t);

struct ContextCandidate {
  ContextItemType type = ContextItemType::kMemory;
  std::string ref;    // citation string, source ref, or handoff ref
  std::string label;  // the entry's kind, the source's kind; empty for a handoff
  std::string text;
  double score = 0;
  // The exact reference as the content shows it: a JSON member, e.g. `"citation":{...}` for a
  // memory entry, `"artifact_ref":{...}` for a handoff, `"source_ref":{...}` for a source
  // (empty: `"ref":"<ref>"`).
  std::string ref_json;
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
// already picked, or contained in one); every item at most kMaxItemBytes; the whole content at most
// max_bytes, counted over the final text.
BuiltContext BuildContext(const std::vector<ContextCandidate>& candidates, size_t max_bytes);

}  // namespace pc
