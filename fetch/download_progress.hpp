// What a download's progress line says and when it is worth printing. The
// printing itself belongs to the program (training::ProgressLine rewrites a
// terminal line in place, prints plain lines when piped).
#pragma once

#include <cstdint>
#include <string>

#include "fetch/download.hpp"

namespace sgnn::graph_io {

// "arxiv.zip  12.3 MB / 81.0 MB  15%  4.2 MB/s  0:16 left"; without a known
// size: "arxiv.zip  12.3 MB  4.2 MB/s". The rate counts this transfer only
// (not a resumed part).
std::string format_download_progress(const std::string& file, const DownloadProgress& progress);

// "81.0 MB", "1.4 GB", "512 bytes" (powers of 1000, as download sizes are quoted).
std::string format_bytes(int64_t bytes);

// Picks the updates to print: on a terminal at most one per 100 ms (the line
// is rewritten in place); otherwise one per 10% of a known size (one per
// 10 MB when the size is unknown). The end of a transfer (received == total)
// is always printed, once.
class DownloadProgressThrottle {
 public:
  explicit DownloadProgressThrottle(bool terminal) : terminal_(terminal) {}
  bool should_print(const DownloadProgress& progress);

 private:
  bool terminal_;
  double last_seconds_ = -1.0;
  int64_t last_step_ = -1;
  bool finished_ = false;
};

}  // namespace sgnn::graph_io
