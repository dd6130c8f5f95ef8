// The watchdog that ends a rank which can no longer finish (watchdog.hpp):
// a fault seen by the check, a rank without progress, and a healthy rank.
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "distributed/watchdog.hpp"

using namespace sgnn::distributed;
using namespace std::chrono_literals;

namespace {

struct Faults {
  std::mutex mutex;
  std::vector<std::string> reasons;
  void record(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex);
    reasons.push_back(reason);
  }
  std::size_t count() {
    std::lock_guard<std::mutex> lock(mutex);
    return reasons.size();
  }
};

// Waits up to `limit` for `condition`.
template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

}  // namespace

TEST_CASE("watchdog: a fault reported by the check fires once with its reason") {
  Faults faults;
  std::atomic<int> polls{0};
  Watchdog watchdog({10ms, 0ms},
                    [&]() -> std::optional<std::string> {
                      if (++polls < 3) return std::nullopt;
                      return std::string("NCCL reported an asynchronous error: remote process exited");
                    },
                    [&](const std::string& reason) { faults.record(reason); });
  REQUIRE(eventually([&] { return faults.count() == 1; }));
  std::this_thread::sleep_for(50ms);
  CHECK(faults.count() == 1);
  CHECK(watchdog.fired());
  CHECK(faults.reasons[0] == "NCCL reported an asynchronous error: remote process exited");
}

TEST_CASE("watchdog: no progress within the limit fires; steady progress does not") {
  Faults stalled;
  {
    Watchdog watchdog({10ms, 100ms}, {}, [&](const std::string& reason) { stalled.record(reason); });
    REQUIRE(eventually([&] { return stalled.count() == 1; }));
  }
  CHECK(stalled.reasons[0].find("no progress for") != std::string::npos);
  CHECK(stalled.reasons[0].find("(limit 0.1 s)") != std::string::npos);

  Faults healthy;
  Watchdog watchdog({10ms, 300ms}, [] { return std::optional<std::string>(); },
                    [&](const std::string& reason) { healthy.record(reason); });
  for (int epoch = 0; epoch < 20; ++epoch) {  // 1 s of epochs of 50 ms each
    std::this_thread::sleep_for(50ms);
    watchdog.progress();
  }
  CHECK(healthy.count() == 0);
  CHECK_FALSE(watchdog.fired());
}

TEST_CASE("watchdog: stopping is prompt and an invalid poll is refused") {
  // A poll of an hour: a destructor that waited out the poll instead of
  // waking the thread would hold this test past the TIMEOUT ctest gives the
  // distributed tests (tests/CMakeLists.txt), which fails it; no clock here.
  {
    Watchdog watchdog({1h, 0ms}, {}, [](const std::string&) {});
    std::this_thread::sleep_for(100ms);  // its thread waiting on the poll by now
  }
  CHECK_THROWS_AS(Watchdog({0ms, 0ms}, {}, [](const std::string&) {}), sgnn::InvalidArgument);
}
