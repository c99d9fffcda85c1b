// Commits answered after a sync that covers them, shared by both stores' group commits.
//
// A store commits without waiting for the disk and counts each commit (Committed). Its writers
// are then answered after a sync that began once their commit was counted: the log is written in
// order, so one sync covers every commit counted before it, and concurrent groups share syncs.
// Syncs run one at a time; a writer whose commit a finished sync covered returns at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

#include "common/status.h"

namespace pc {

class CoveringSync {
 public:
  // After a COMMIT returned: its number, to pass to Await.
  uint64_t Committed() { return committed_.fetch_add(1, std::memory_order_acq_rel) + 1; }

  // Returns once `commit` is durable: at once if a finished sync covered it, else after running
  // `sync` (given how many commits it covers). A failed sync covers nothing; its status is
  // returned to this writer, and the next writer runs a sync of its own.
  Status Await(uint64_t commit, const std::function<Status(uint64_t covers)>& sync) {
    std::lock_guard<std::mutex> lock(mu_);
    if (synced_ >= commit) return Status::Ok();
    const uint64_t covers = committed_.load(std::memory_order_acquire);
    Status s = sync(covers);
    if (s.ok()) synced_ = covers;
    return s;
  }

 private:
  std::atomic<uint64_t> committed_{0};
  std::mutex mu_;
  uint64_t synced_ = 0;  // under mu_: the commits a finished sync covers
};

}  // namespace pc
