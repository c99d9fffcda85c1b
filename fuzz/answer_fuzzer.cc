// extract/operations.h: ParseAnswer on any model answer (fenced or not), with two shapes of
// call (3 sources and 2 entries shown; 1 source, none, a tiny text limit).
// Checked: never crashes or throws; a usable answer's valid operations point only at what was
// shown, each source once, each entry revised once, with UTF-8 text within the limit and an
// extraction kind; an unusable one is a ProviderError.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "common/utf8.h"
#include "extract/operations.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  const std::string answer(reinterpret_cast<const char*>(data), size);
  struct Shape {
    size_t sources, entries, max_text;
  };
  for (Shape shape : {Shape{3, 2, 16384}, Shape{1, 0, 32}}) {
    Result<ParsedAnswer> parsed = ParseAnswer(answer, shape.sources, shape.entries, shape.max_text);
    if (!parsed.ok()) {
      // (The message quotes the answer as it came, bytes and all: every JSON writer that carries
      // it replaces what is not UTF-8.)
      FUZZ_CHECK(parsed.status().code() == Code::kProviderError, parsed.status().ToString());
      continue;
    }
    const std::string shown = fuzz::Printable(answer);
    std::set<size_t> revised;
    for (const Candidate& c : parsed->valid) {
      FUZZ_CHECK(c.op == ChangeOp::kAdd || c.op == ChangeOp::kRevise, shown);
      FUZZ_CHECK(!c.evidence.empty(), shown);
      std::set<size_t> evidence;
      for (size_t e : c.evidence) {
        FUZZ_CHECK(e < shape.sources, shown);
        FUZZ_CHECK(evidence.insert(e).second, shown + " evidence repeated");
      }
      if (c.op == ChangeOp::kRevise) {
        FUZZ_CHECK(c.target < shape.entries, shown);
        FUZZ_CHECK(revised.insert(c.target).second, shown + " entry revised twice");
      }
      if (c.op == ChangeOp::kAdd || !c.kind.empty()) FUZZ_CHECK(IsExtractionKind(c.kind), shown);
      FUZZ_CHECK(!c.text.empty() && c.text.size() <= shape.max_text && IsValidUtf8(c.text), shown);
      FUZZ_CHECK(IsValidUtf8(c.json), shown);
    }
    for (const Rejection& r : parsed->rejected)
      FUZZ_CHECK(!r.reason.empty() && IsValidUtf8(r.reason),
                 shown + " reason " + fuzz::Printable(r.reason));
  }
  return 0;
}
