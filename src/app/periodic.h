// A background pass on a thread of its own: once at start (if asked), then every `interval`,
// until Stop() — which wakes it at once and waits for the pass in progress to notice `stopping()`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "common/guarded.h"

namespace pc {

class Periodic {
 public:
  using Pass = std::function<void(bool first, const std::atomic<bool>& stopping)>;
  // `pass` runs on the thread; it should return soon once `stopping` is true.
  Periodic(std::chrono::seconds interval, bool at_start, Pass pass)
      : thread_([this, interval, at_start, pass = std::move(pass)] {
          std::unique_lock<std::mutex> lock(mu_);
          bool first = true;
          if (!at_start && cv_.wait_for(lock, interval, [&] { return stopping_.load(); })) return;
          do {
            lock.unlock();
            RunGuarded("a background pass", [&] { pass(first, stopping_); });
            first = false;
            lock.lock();
          } while (!cv_.wait_for(lock, interval, [&] { return stopping_.load(); }));
        }) {}
  ~Periodic() { Stop(); }
  Periodic(const Periodic&) = delete;
  Periodic& operator=(const Periodic&) = delete;

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace pc
