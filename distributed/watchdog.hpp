// Watchdog: a thread that ends a rank which can no longer finish, instead of
// leaving it blocked in a collective (a GPU kernel waiting for a dead peer
// never returns by itself). Every `poll` it asks `check` for a fault (NCCL's
// asynchronous error, a peer's failure report) and compares the time since the
// last progress() with `progress_timeout`; on the first fault it calls
// on_fault(reason) once, on its own thread. on_fault is expected to abort the
// communicator and end the process; if it returns, the watchdog stops.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace sgnn::distributed {

class Watchdog {
 public:
  struct Options {
    std::chrono::milliseconds poll{100};
    std::chrono::milliseconds progress_timeout{0};  // 0: no limit
  };
  using Check = std::function<std::optional<std::string>()>;
  using OnFault = std::function<void(const std::string& reason)>;

  // Starts the thread; the progress clock starts now.
  Watchdog(Options options, Check check, OnFault on_fault);
  ~Watchdog();  // stops the thread (waits at most one poll)
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // The rank moved on (an epoch ended): restarts the progress clock.
  void progress();
  bool fired() const;

 private:
  void watch();

  Options options_;
  Check check_;
  OnFault on_fault_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::chrono::steady_clock::time_point last_progress_;
  bool stopping_ = false;
  bool fired_ = false;
  std::thread thread_;
};

}  // namespace sgnn::distributed
