#include "app/data_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace pc {

namespace {

std::string LockPath(const std::string& data_dir) {
  return (std::filesystem::path(data_dir) / "serve.lock").string();
}

// The refusal while another process holds the lock on `fd`: its pid, as the holder wrote it.
Status HeldBy(int fd, const std::string& data_dir) {
  char pid[32] = "";
  ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
  std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
  return Status(Code::kPermissionDenied,
                "another powercontext serve" +
                    (holder.empty() ? std::string() : " (pid " + holder + ")") +
                    " is using the data directory " + data_dir +
                    "; stop it first, or give this one its own --data");
}

}  // namespace

Result<std::unique_ptr<DataDirLock>> DataDirLock::Acquire(const std::string& data_dir) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) return Internal("cannot create data directory " + data_dir + ": " + ec.message());
  const std::string path = LockPath(data_dir);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Internal("cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    Status held = HeldBy(fd, data_dir);
    ::close(fd);
    return held;
  }
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0) {
    // The lock is what matters; the pid is only for the message above.
  }
  return std::unique_ptr<DataDirLock>(new DataDirLock(fd));
}

Status DataDirLock::CheckFree(const std::string& data_dir) {
  int fd = ::open(LockPath(data_dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Ok();  // never served, so nobody serves it now
  Status status = ::flock(fd, LOCK_SH | LOCK_NB) == 0 ? Status::Ok() : HeldBy(fd, data_dir);
  ::close(fd);  // releases the shared lock, if taken
  return status;
}

DataDirLock::~DataDirLock() { ::close(fd_); }

}  // namespace pc
