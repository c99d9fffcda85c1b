// One `serve` per data directory. Two servers on one directory would each keep their own vector
// indexes and saved graphs (data/ann) and their own group commit; SQLite keeps the data safe, but
// not those. So a second `serve` is refused with a clear message, while one-shot CLI commands and
// `mcp --data` still open the directory (SQLite serializes their writes with the server's).
#pragma once

#include <memory>
#include <string>

#include "common/status.h"

namespace pc {

class DataDirLock {
 public:
  // Takes data_dir/serve.lock (flock, released when the process ends, even by SIGKILL).
  // PermissionDenied, naming the holder's pid, when another process holds it.
  static Result<std::unique_ptr<DataDirLock>> Acquire(const std::string& data_dir);
  // Acquire's PermissionDenied when a process holds data_dir's lock now; Ok when none does (or
  // there is no lock file). Creates and changes nothing.
  static Status CheckFree(const std::string& data_dir);
  ~DataDirLock();
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

 private:
  explicit DataDirLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace pc
