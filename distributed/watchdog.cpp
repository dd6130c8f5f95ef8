#include "distributed/watchdog.hpp"

#include "core/error.hpp"

namespace sgnn::distributed {

Watchdog::Watchdog(Options options, Check check, OnFault on_fault)
    : options_(options), check_(std::move(check)), on_fault_(std::move(on_fault)),
      last_progress_(std::chrono::steady_clock::now()) {
  SGNN_CHECK(options_.poll.count() > 0, "Watchdog: the poll interval must be positive");
  thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Watchdog::progress() {
  std::lock_guard<std::mutex> lock(mutex_);
  last_progress_ = std::chrono::steady_clock::now();
}

bool Watchdog::fired() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fired_;
}

void Watchdog::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, options_.poll, [this] { return stopping_; })) {
    const auto quiet = std::chrono::steady_clock::now() - last_progress_;
    lock.unlock();
    std::optional<std::string> fault = check_ ? check_() : std::nullopt;
    if (!fault && options_.progress_timeout.count() > 0 && quiet > options_.progress_timeout) {
      fault = detail::concat("no progress for ", std::chrono::duration<double>(quiet).count(),
                             " s (limit ", std::chrono::duration<double>(options_.progress_timeout).count(),
                             " s): a peer has probably failed or hangs");
    }
    if (fault) {
      {
        std::lock_guard<std::mutex> guard(mutex_);
        fired_ = true;
      }
      on_fault_(*fault);
      return;
    }
    lock.lock();
  }
}

}  // namespace sgnn::distributed
