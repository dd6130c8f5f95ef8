#include "fetch/download_progress.hpp"

#include <cstdio>

namespace sgnn::graph_io {

std::string format_bytes(int64_t bytes) {
  char text[32];
  const double value = static_cast<double>(bytes);
  if (bytes < 1000) {
    std::snprintf(text, sizeof text, "%lld bytes", static_cast<long long>(bytes));
  } else if (bytes < 1000 * 1000) {
    std::snprintf(text, sizeof text, "%.1f kB", value / 1e3);
  } else if (bytes < int64_t{1000} * 1000 * 1000) {
    std::snprintf(text, sizeof text, "%.1f MB", value / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%.2f GB", value / 1e9);
  }
  return text;
}

std::string format_download_progress(const std::string& file, const DownloadProgress& progress) {
  std::string line = file + "  " + format_bytes(progress.received);
  const bool known = progress.total > 0;
  if (known) {
    char percent[16];
    std::snprintf(percent, sizeof percent, "  %3d%%",
                  static_cast<int>(100 * static_cast<double>(progress.received) / static_cast<double>(progress.total)));
    line += " / " + format_bytes(progress.total) + percent;
  }
  const double transferred = static_cast<double>(progress.received - progress.resumed_from);
  if (progress.seconds > 0.05 && transferred > 0) {
    const double rate = transferred / progress.seconds;
    line += "  " + format_bytes(static_cast<int64_t>(rate)) + "/s";
    if (known && progress.received < progress.total) {
      const auto left = static_cast<int64_t>(static_cast<double>(progress.total - progress.received) / rate + 0.5);
      char text[32];
      if (left >= 3600) {
        std::snprintf(text, sizeof text, "  %lld:%02lld:%02lld left", static_cast<long long>(left / 3600),
                      static_cast<long long>(left / 60 % 60), static_cast<long long>(left % 60));
      } else {
        std::snprintf(text, sizeof text, "  %lld:%02lld left", static_cast<long long>(left / 60),
                      static_cast<long long>(left % 60));
      }
      line += text;
    }
  }
  if (progress.resumed_from > 0) line += "  (resumed at " + format_bytes(progress.resumed_from) + ")";
  return line;
}

bool DownloadProgressThrottle::should_print(const DownloadProgress& progress) {
  if (finished_) return false;
  if (progress.total > 0 && progress.received >= progress.total) {
    finished_ = true;
    return true;
  }
  if (terminal_) {
    if (last_seconds_ >= 0 && progress.seconds - last_seconds_ < 0.1) return false;
    last_seconds_ = progress.seconds;
    return true;
  }
  const int64_t step = progress.total > 0 ? 10 * progress.received / progress.total
                                          : progress.received / (10 * 1000 * 1000);
  if (step == last_step_) return false;
  const bool first = last_step_ < 0;
  last_step_ = step;
  return !first || step > 0;  // the first line when something has arrived
}

}  // namespace sgnn::graph_io
