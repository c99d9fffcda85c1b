// memory_md/: a Markdown memory file from any bytes (import memory-md reads files a cloned
// repository wrote), and a git remote URL (every hook names its scope after one). Checked: never
// throws or crashes (the bullet scan replaced a std::regex that overflowed the stack on a long
// line); every item has a kind and a non-empty text; there are no more items than lines; a remote
// either names no scope or a host/path one.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "hooks/project_scope.h"
#include "memory_md/memory_md.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  const std::vector<MemoryMdItem> items = MemoryMdItems(text, "fact");
  FUZZ_CHECK(items.size() <= lines, fuzz::Printable(text));
  for (const MemoryMdItem& item : items) {
    FUZZ_CHECK(!item.kind.empty(), fuzz::Printable(text));
    FUZZ_CHECK(!item.text.empty(), fuzz::Printable(text));
  }
  if (std::optional<std::string> scope = NormalizeGitRemote(text)) {
    FUZZ_CHECK(scope->find('/') != std::string::npos, fuzz::Printable(text));
    FUZZ_CHECK(scope->size() <= 2 * size + 8, fuzz::Printable(text));
  }
  return 0;
}
