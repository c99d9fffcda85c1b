#include "common/bounded_read.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace pc {
namespace {

constexpr size_t kChunk = 1 << 16;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status Refuse(const std::string& path, const std::string& why) {
  return InvalidArgument(path + ": " + why).WithDetail("file", path);
}

Status OverLimit(const std::string& path, uint64_t limit, const std::string& what) {
  return TooLarge(path + ": " + what + " is over the limit of " + ByteLimitText(limit))
      .WithDetail("file", path)
      .WithDetail("limit_bytes", static_cast<int64_t>(limit));
}

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Opens `path` for reading without blocking or following a last-component link (unless asked),
// and checks it is a regular file.
Result<int> OpenRegular(const std::string& path, FollowLinks follow, struct stat& st) {
  const int flags =
      O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow == FollowLinks::kNo ? O_NOFOLLOW : 0);
  int fd = open(path.c_str(), flags);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP && follow == FollowLinks::kNo)
      return Refuse(path, "is a symbolic link; it is not followed (only regular files are read)");
    return Refuse(path, std::string("cannot read it: ") + std::strerror(e));
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool stat_ok = fstat(fd, &st) == 0;
    close(fd);
    return Refuse(path, stat_ok ? std::string("is ") + KindOf(st.st_mode) + ", not a regular file"
                                : "cannot read it: fstat failed");
  }
  return fd;
}

// Appends what `fd` gives from its current offset up to `limit` + 1 bytes to `out`; false on a
// read error.
bool ReadUpTo(int fd, size_t limit, std::string& out) {
  char buf[kChunk];
  while (out.size() <= limit) {
    const size_t want = std::min(sizeof buf, limit + 1 - out.size());
    const ssize_t n = read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::string ByteLimitText(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

Result<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes, FollowLinks follow) {
  struct stat st {};
  PC_ASSIGN_OR_RETURN(int raw, OpenRegular(path, follow, st));
  Fd fd(raw);
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return OverLimit(path, max_bytes, "the file");
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  if (!ReadUpTo(fd.get(), max_bytes, out))
    return Refuse(path, std::string("cannot read it: ") + std::strerror(errno));
  if (out.size() > max_bytes) return OverLimit(path, max_bytes, "the file");  // it grew while read
  return out;
}

Result<FileTail> ReadFileTail(const std::string& path, size_t tail_bytes, uint64_t max_file_bytes,
                              FollowLinks follow) {
  struct stat st {};
  PC_ASSIGN_OR_RETURN(int raw, OpenRegular(path, follow, st));
  Fd fd(raw);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_file_bytes) return OverLimit(path, max_file_bytes, "the file");
  auto failed = [&] {
    return Refuse(path, std::string("cannot read it: ") + std::strerror(errno));
  };
  FileTail tail;
  const uint64_t cut = size > tail_bytes ? size - tail_bytes : 0;
  bool on_line_start = true;  // does `cut` start a line?
  if (cut > 0) {
    char buf[kChunk];
    for (uint64_t at = 0; at < cut;) {
      const ssize_t n =
          pread(fd.get(), buf, static_cast<size_t>(std::min<uint64_t>(sizeof buf, cut - at)),
                static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return failed();
      if (n == 0) break;  // it shrank
      for (const char* p = buf;
           (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(buf + n - p))));
           ++p)
        ++tail.skipped_lines;
      at += static_cast<uint64_t>(n);
      if (at == cut) on_line_start = buf[n - 1] == '\n';
    }
  }
  if (lseek(fd.get(), static_cast<off_t>(cut), SEEK_SET) < 0) return failed();
  // What was there at fstat: a line still being written past it is read next time.
  if (!ReadUpTo(fd.get(), static_cast<size_t>(size - cut), tail.text)) return failed();
  if (tail.text.size() > size - cut) tail.text.resize(static_cast<size_t>(size - cut));
  tail.skipped_bytes = cut;
  if (!on_line_start) {  // the line cut in two is skipped whole: the tail starts at the next one
    const size_t nl = tail.text.find('\n');
    const size_t drop = nl == std::string::npos ? tail.text.size() : nl + 1;
    tail.text.erase(0, drop);
    tail.skipped_bytes += drop;
    tail.skipped_lines += nl == std::string::npos ? 0 : 1;
  }
  return tail;
}

Result<std::string> ReadBoundedFd(int fd, size_t max_bytes, int64_t timeout_ms,
                                  const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string out;
  char buf[kChunk];
  while (out.size() <= max_bytes) {
    if (timeout_ms > 0) {
      const int64_t left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      pollfd p{fd, POLLIN, 0};
      const int ready = left > 0 ? poll(&p, 1, static_cast<int>(left)) : 0;
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0)
        return InvalidArgument(what + ": nothing more came for " + std::to_string(timeout_ms) +
                               " ms and it was not closed");
      if (ready < 0) return InvalidArgument(what + ": cannot read it: " + std::strerror(errno));
    }
    const ssize_t n = read(fd, buf, std::min(sizeof buf, max_bytes + 1 - out.size()));
    if (n < 0 && errno == EAGAIN && timeout_ms <= 0) {  // a non-blocking descriptor: wait for it
      pollfd p{fd, POLLIN, 0};
      (void)poll(&p, 1, -1);
      continue;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return InvalidArgument(what + ": cannot read it: " + std::strerror(errno));
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
  return TooLarge(what + " is over the limit of " + ByteLimitText(max_bytes))
      .WithDetail("limit_bytes", static_cast<int64_t>(max_bytes));
}

}  // namespace pc
