// context/builder.h: BuildContext on candidates and a budget decoded from the input:
//   2 bytes   max_bytes (little endian; 0 … 65,535, past every item limit)
//   then, per candidate (at most 40): 1 byte type (mod 3), 1 byte score, 1 byte ref length
//   + ref, 1 byte label length (mod 16) + label, 2 bytes text length (mod 4,096) + text.
// Checked (DESIGN §5, invariant 11): never more than max_bytes; at most 8 items, 1 handoff, 2
// experience; each item within kMaxItemBytes and cut only when marked; the same input gives the
// same bytes; valid UTF-8 in gives valid UTF-8 out (cuts fall on character boundaries).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "context/builder.h"
#include "fuzz_check.h"
#include "model/citation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  fuzz::Bytes in(data, size);
  const size_t max_bytes = in.U16();
  std::vector<ContextCandidate> candidates;
  bool utf8 = true;
  while (!in.empty() && candidates.size() < 40) {
    ContextCandidate c;
    c.type = static_cast<ContextItemType>(in.U8() % 3);
    c.score = in.U8() / 16.0;
    c.ref = in.Str(in.U8());
    c.label = in.Str(in.U8() % 16);
    c.text = in.Str(in.U16() % 4096);
    utf8 = utf8 && IsValidUtf8(c.ref) && IsValidUtf8(c.label) && IsValidUtf8(c.text);
    candidates.push_back(std::move(c));
  }

  BuiltContext built = BuildContext(candidates, max_bytes);
  const std::string what = "max_bytes " + std::to_string(max_bytes) + ", " +
                           std::to_string(candidates.size()) + " candidates, content " +
                           std::to_string(built.content.size()) + " bytes";
  FUZZ_CHECK(built.content.size() <= max_bytes, what);
  FUZZ_CHECK(built.content.empty() == built.items.empty(), what);
  FUZZ_CHECK(built.items.size() <= kMaxContextItems, what);
  size_t handoffs = 0, experience = 0;
  for (const ContextItem& item : built.items) {
    handoffs += item.type == ContextItemType::kHandoff;
    experience += item.type == ContextItemType::kExperience;
    FUZZ_CHECK(item.bytes <= kMaxItemBytes, what);
    FUZZ_CHECK(built.content.find(QuoteJson(item.ref)) != std::string::npos,
               what + ": ref missing");
    // An item is its candidate's whole text, or a shorter cut marked as one.
    bool from_candidate = false;
    for (const ContextCandidate& c : candidates)
      if (c.type == item.type && c.ref == item.ref && c.score == item.score)
        from_candidate =
            from_candidate || (item.cut ? item.bytes < c.text.size() + kContextCutMark.size()
                                        : item.bytes == c.text.size());
    FUZZ_CHECK(from_candidate,
               what + ": an item is neither a candidate's text nor a marked cut of one");
  }
  FUZZ_CHECK(handoffs <= 1, what);
  FUZZ_CHECK(experience <= kMaxExperienceItems, what);
  if (utf8) FUZZ_CHECK(IsValidUtf8(built.content), what + ": content is not UTF-8");
  // RFC 0028's frame: the fixed preamble first, the END marker last, and nothing an item says
  // starts a line of its own (every item is inside the one JSON line).
  if (!built.content.empty()) {
    FUZZ_CHECK(built.content.rfind("PowerContext prepared untrusted historical context.\n", 0) == 0,
               what);
    const std::string end = "]}\nEND_POWERCONTEXT_PREPARED_CONTEXT_V1";
    FUZZ_CHECK(built.content.size() > end.size() &&
                   built.content.compare(built.content.size() - end.size(), end.size(), end) == 0,
               what);
    size_t lines = 0;
    for (char ch : built.content) lines += ch == '\n';
    FUZZ_CHECK(lines == 5, what + ": an item broke out of its JSON line");
  }

  BuiltContext again = BuildContext(candidates, max_bytes);
  FUZZ_CHECK(again.content == built.content && again.items.size() == built.items.size(),
             what + ": not deterministic");
  return 0;
}
