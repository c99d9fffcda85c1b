#include "common/durable_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace pc {
namespace {

Status Errno(const std::string& what, int err) {
  return Internal(what + ": " + std::strerror(err));
}

// Writes all of `data` (write(2) may take less than it is given).
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Status SyncPath(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open " + path, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  return rc == 0 ? Status::Ok() : Errno("cannot sync " + path, err);
}

Status SyncParentDir(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return SyncPath(parent.empty() ? "." : parent.string());
}

Status CopyFileSynced(const std::string& from, const std::string& to) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Errno("cannot read " + from, errno);
  int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    return Errno("cannot create " + to, err);
  }
  std::vector<char> buf(1 << 20);
  Status status;
  while (status.ok()) {
    ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) status = Errno("cannot read " + from, errno);
    if (n <= 0) break;
    if (!WriteAll(out, buf.data(), static_cast<size_t>(n)))
      status = Errno("cannot write " + to, errno);
  }
  if (status.ok() && ::fsync(out) != 0) status = Errno("cannot sync " + to, errno);
  ::close(in);
  if (::close(out) != 0 && status.ok()) status = Errno("cannot write " + to, errno);
  return status;
}

Status RenameDurably(const std::string& from, const std::string& to, bool replace) {
  int rc = replace ? ::rename(from.c_str(), to.c_str())
                   : ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
  if (rc != 0 && !replace && errno == EINVAL) {
    // A file system without RENAME_NOREPLACE: a new hard link fails the same way when `to` exists.
    rc = ::link(from.c_str(), to.c_str());
    if (rc == 0) ::unlink(from.c_str());
  }
  if (rc != 0) {
    if (errno == EEXIST) return InvalidArgument(to + " already exists");
    return Errno("cannot rename " + from + " to " + to, errno);
  }
  return SyncParentDir(to);
}

Status WriteFileDurably(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot write " + tmp, errno);
  Status s =
      WriteAll(fd, text.data(), text.size()) ? Status::Ok() : Errno("cannot write " + tmp, errno);
  if (s.ok() && ::fsync(fd) != 0) s = Errno("cannot sync " + tmp, errno);
  if (::close(fd) != 0 && s.ok()) s = Errno("cannot write " + tmp, errno);
  if (s.ok()) s = RenameDurably(tmp, path, /*replace=*/true);
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

}  // namespace pc
