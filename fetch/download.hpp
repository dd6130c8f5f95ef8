// Downloads one file over HTTP(S) with libcurl, resuming an interrupted
// download with an HTTP Range request.
//
//   download_file(url, part_file, options)
//     url        http:// or https:// (redirects followed, to http(s) only;
//                https checks the server certificate against the system's CAs)
//     part_file  where the bytes go. When it exists, its bytes are taken as
//                the start of an interrupted download of the same URL: the
//                rest is asked for (Range: bytes=<size>-) and appended. A
//                server that ignores Range (answers 200) or finds the range
//                unsatisfiable (416) makes the download start over from zero.
//   Returns the file's final size and the bytes this call received. On
//   failure throws IoError(url, 0, reason):
//   HTTP status >= 400 (nothing is written for it), connection refused, name
//   not resolved, TLS failure, no data for `stall_seconds`, a transfer cut
//   short. `part_file` then keeps every byte received, so calling again
//   resumes (an empty one is removed); an error writing `part_file` throws
//   IoError(part_file, 0, reason).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace sgnn::graph_io {

struct DownloadProgress {
  int64_t received = 0;      // bytes in the file so far, resumed part included
  int64_t total = -1;        // the file's full size; -1 while the server has not said
  int64_t resumed_from = 0;  // bytes already there when this transfer started
  double seconds = 0.0;      // since this transfer started
};

struct DownloadOptions {
  // Called as bytes arrive (often: throttle before printing) and once at the end.
  std::function<void(const DownloadProgress&)> on_progress;
  long connect_timeout_seconds = 30;
  long stall_seconds = 60;  // give up after this long below 1 byte/s
};

struct DownloadResult {
  int64_t size = 0;      // of the complete file
  int64_t received = 0;  // over the network by this call (less than size when resumed)
};

DownloadResult download_file(const std::string& url, const std::filesystem::path& part_file,
                             const DownloadOptions& options = {});

}  // namespace sgnn::graph_io
