// The download progress line (bytes, size, rate, time left) and which
// updates get printed: piped, one line per 10%; on a terminal, at most ten a
// second; the end always, once.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fetch/download_progress.hpp"

using namespace sgnn::graph_io;

namespace {

DownloadProgress at(int64_t received, int64_t total, double seconds, int64_t resumed_from = 0) {
  DownloadProgress progress;
  progress.received = received;
  progress.total = total;
  progress.seconds = seconds;
  progress.resumed_from = resumed_from;
  return progress;
}

}  // namespace

TEST_CASE("format_download_progress gives bytes, size, percent, rate and time left") {
  CHECK(format_download_progress("arxiv.zip", at(12'300'000, 81'000'000, 3.0)) ==
        "arxiv.zip  12.3 MB / 81.0 MB   15%  4.1 MB/s  0:17 left");
  CHECK(format_download_progress("x", at(2'000'000'000, 57'000'000'000, 100.0)) ==
        "x  2.00 GB / 57.00 GB    3%  20.0 MB/s  45:50 left");
  CHECK(format_download_progress("x", at(2'000'000'000, 57'000'000'000, 1000.0)) ==
        "x  2.00 GB / 57.00 GB    3%  2.0 MB/s  7:38:20 left");
  CHECK(format_download_progress("x", at(512, -1, 0.0)) == "x  512 bytes");
  // The rate counts this transfer's bytes only, not the resumed part.
  CHECK(format_download_progress("x", at(60'000'000, 100'000'000, 10.0, 50'000'000)) ==
        "x  60.0 MB / 100.0 MB   60%  1.0 MB/s  0:40 left  (resumed at 50.0 MB)");
  CHECK(format_download_progress("x", at(100'000'000, 100'000'000, 10.0)) == "x  100.0 MB / 100.0 MB  100%  10.0 MB/s");
}

TEST_CASE("piped, the throttle prints one update per 10% and the end once") {
  DownloadProgressThrottle throttle(/*terminal=*/false);
  std::vector<int64_t> printed;
  for (int64_t received = 0; received <= 1000; received += 7) {
    if (throttle.should_print(at(received, 1000, 0.001 * static_cast<double>(received)))) printed.push_back(received);
  }
  CHECK(throttle.should_print(at(1000, 1000, 2.0)));
  CHECK_FALSE(throttle.should_print(at(1000, 1000, 2.1)));
  CHECK(printed == std::vector<int64_t>{105, 203, 301, 406, 504, 602, 700, 805, 903});
}

TEST_CASE("on a terminal, the throttle prints at most every 100 ms") {
  DownloadProgressThrottle throttle(/*terminal=*/true);
  int printed = 0;
  for (int step = 0; step < 1000; ++step) {
    if (throttle.should_print(at(step, 10000, 0.001 * step))) ++printed;  // 1 s of updates every ms
  }
  CHECK(printed == 10);
  CHECK(throttle.should_print(at(10000, 10000, 1.0001)));  // the end, however soon
}
