// common/bounded_read + session/transcript: the client's file readers on any bytes, as the hooks
// and session-stats read a host's transcript: the file written to a scratch path, then read whole
// under a cap and from its tail (the first two bytes pick the cap and the tail's size). Checked:
// never throws or crashes; a whole read is the file or TooLarge; a tail is a suffix of the file
// starting at a line start (or empty), no longer than asked, with exactly the newlines before it
// counted; the transcript read from the tail numbers its entries from there.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/bounded_read.h"
#include "fuzz_check.h"
#include "session/transcript.h"

namespace {

// One scratch file per process, removed when it exits.
struct Scratch {
  std::string path = "/tmp/pc-fuzz-file-reader-" + std::to_string(getpid());
  ~Scratch() { std::remove(path.c_str()); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  static const Scratch scratch;
  const std::string& path = scratch.path;
  fuzz::Bytes in(data, size);
  const size_t cap = in.U8() * 16u;
  const size_t tail_bytes = in.U8() * 8u + 1;
  const std::string text = in.Rest();
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << text; }

  Result<std::string> whole = ReadBoundedFile(path, cap);
  if (text.size() <= cap)
    FUZZ_CHECK(whole.ok() && *whole == text, fuzz::Printable(text));
  else
    FUZZ_CHECK(!whole.ok() && whole.status().code() == Code::kTooLarge, fuzz::Printable(text));

  Result<FileTail> tail = ReadFileTail(path, tail_bytes, 1u << 20);
  FUZZ_CHECK(tail.ok(), tail.ok() ? "" : tail.status().ToString());
  FUZZ_CHECK(tail->text.size() <= tail_bytes, fuzz::Printable(text));
  FUZZ_CHECK(tail->skipped_bytes + tail->text.size() == text.size(), fuzz::Printable(text));
  FUZZ_CHECK(text.compare(tail->skipped_bytes, std::string::npos, tail->text) == 0,
             fuzz::Printable(text));
  FUZZ_CHECK(
      tail->text.empty() || tail->skipped_bytes == 0 || text[tail->skipped_bytes - 1] == '\n',
      fuzz::Printable(text));  // empty when no whole line fits
  const int64_t newlines = std::count(
      text.begin(), text.begin() + static_cast<std::ptrdiff_t>(tail->skipped_bytes), '\n');
  FUZZ_CHECK(tail->skipped_lines == newlines, fuzz::Printable(text));

  Result<Transcript> t = ParseTranscript(tail->text, tail->skipped_lines + 1);
  if (t.ok())
    for (const TranscriptEntry& e : t->entries)
      FUZZ_CHECK(e.line > tail->skipped_lines, fuzz::Printable(text));
  else
    FUZZ_CHECK(t.status().code() == Code::kInvalidArgument, t.status().ToString());
  return 0;
}
