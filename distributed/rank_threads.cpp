#include "distributed/rank_threads.hpp"

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace sgnn::distributed {

void run_rank_threads(int size, const std::function<void(int rank)>& body, const std::function<void()>& on_failure) {
  SGNN_CHECK(size >= 1, "run_rank_threads: size must be at least 1, got ", size);
  std::mutex mutex;
  std::exception_ptr first_failure;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(size));
  for (int rank = 0; rank < size; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        body(rank);
      } catch (...) {
        bool first = false;
        {
          std::lock_guard<std::mutex> lock(mutex);
          first = !first_failure;
          if (first) first_failure = std::current_exception();
        }
        if (first && on_failure) on_failure();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  if (first_failure) std::rethrow_exception(first_failure);
}

}  // namespace sgnn::distributed
