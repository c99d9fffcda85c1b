// Reading files and pipes that someone else wrote (a host's transcript, a cloned repository's
// memory files, an exam, standard input), within limits: at most a given number of bytes, only
// regular files where a file is expected (a FIFO would block the reader, /dev/zero never ends),
// and a symbolic link refused unless the caller follows links on purpose. Errors say the path
// first ("PATH: why") and carry it as the detail "file": TooLarge past a limit (the limit in the
// message and as "limit_bytes"), InvalidArgument for everything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace pc {

enum class FollowLinks { kNo, kYes };

// The whole of the regular file at `path`, at most `max_bytes` of it: a larger file (or one that
// grows past the limit while it is read) is refused with the limit in the message. Opened
// non-blocking, so a FIFO or a device is refused at once rather than waited on.
Result<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes,
                                    FollowLinks follow = FollowLinks::kNo);

// The end of a regular file of up to `max_file_bytes`: all of it when it is at most `tail_bytes`,
// else the whole lines within its last `tail_bytes` (the line cut by that boundary is left out),
// with the lines before them counted, so a line keeps its number. A line-oriented reader (JSONL)
// reads a big file's recent part this way. Bytes written after it was opened are left for next
// time.
struct FileTail {
  std::string text;
  uint64_t skipped_bytes = 0;  // bytes before `text`
  int64_t skipped_lines = 0;   // newlines before `text`: its first line is skipped_lines + 1
};
Result<FileTail> ReadFileTail(const std::string& path, size_t tail_bytes, uint64_t max_file_bytes,
                              FollowLinks follow = FollowLinks::kNo);

// What `fd` (standard input, a pipe) gives until its end, at most `max_bytes`; more is refused.
// With `timeout_ms` > 0, a writer that neither writes nor closes for that long is refused too.
// `what` names the input in messages ("standard input").
Result<std::string> ReadBoundedFd(int fd, size_t max_bytes, int64_t timeout_ms,
                                  const std::string& what);

// "16 MiB", "512 KiB" or "1000 bytes": a limit as messages and docs state it.
std::string ByteLimitText(uint64_t bytes);

}  // namespace pc
