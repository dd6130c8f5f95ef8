#include "fetch/download.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "core/error.hpp"
#include "graph_io/atomic_file.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

void initialise_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw IoError("libcurl", 0, "curl_global_init failed");
  });
}

struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// State shared with libcurl's C callbacks, which must not throw: the first
// error is kept here and rethrown after curl_easy_perform returns.
struct Transfer {
  int fd = -1;
  std::string file_name;
  int64_t resumed_from = 0;
  int64_t written = 0;  // by this transfer
  std::chrono::steady_clock::time_point started;
  const DownloadOptions* options = nullptr;
  std::optional<IoError> write_error;
  std::exception_ptr callback_error;

  DownloadProgress progress(int64_t remaining_total) const {
    DownloadProgress p;
    p.resumed_from = resumed_from;
    p.received = resumed_from + written;
    p.total = remaining_total > 0 ? resumed_from + remaining_total : -1;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return p;
  }
};

std::size_t on_data(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  try {
    write_all(transfer->fd, data, bytes, transfer->file_name);
  } catch (const IoError& error) {
    transfer->write_error = error;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  transfer->written += static_cast<int64_t>(bytes);
  return bytes;
}

int on_progress(void* user, curl_off_t download_total, curl_off_t, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  if (!transfer->options->on_progress) return 0;
  try {
    transfer->options->on_progress(transfer->progress(static_cast<int64_t>(download_total)));
  } catch (...) {
    transfer->callback_error = std::current_exception();
    return 1;  // aborts the transfer
  }
  return 0;
}

const char* status_meaning(long status) {
  switch (status) {
    case 400: return "bad request";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not found";
    case 410: return "gone";
    case 416: return "range not satisfiable";
    case 429: return "too many requests";
    case 500: return "internal server error";
    case 502: return "bad gateway";
    case 503: return "service unavailable";
    case 504: return "gateway timeout";
    default: return "error";
  }
}

enum class Outcome { Done, StartOver };

// One libcurl transfer appending to `fd` from `resume_from`; adds the bytes
// it wrote to `received`.
Outcome transfer_once(const std::string& url, int fd, const fs::path& part_file, int64_t resume_from,
                      const DownloadOptions& options, int64_t& received) {
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) throw IoError(url, 0, "curl_easy_init failed");
  Transfer transfer;
  transfer.fd = fd;
  transfer.file_name = part_file.string();
  transfer.resumed_from = resume_from;
  transfer.started = std::chrono::steady_clock::now();
  transfer.options = &options;
  char error_text[CURL_ERROR_SIZE] = {0};

  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(handle, CURLOPT_FAILONERROR, 1L);  // status >= 400: fail before writing the body
  curl_easy_setopt(handle, CURLOPT_USERAGENT, "sparsegnn-sgnn_data/0.1 libcurl");
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, options.connect_timeout_seconds);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, options.stall_seconds);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, &on_data);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, &on_progress);
  curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &transfer);
  if (resume_from > 0) curl_easy_setopt(handle, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(resume_from));

  const CURLcode code = curl_easy_perform(handle);
  received += transfer.written;
  if (transfer.callback_error) std::rethrow_exception(transfer.callback_error);
  if (transfer.write_error) throw *transfer.write_error;
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  curl_off_t expected = -1;
  curl_easy_getinfo(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected);

  if (code == CURLE_OK) {
    if (options.on_progress) options.on_progress(transfer.progress(expected > 0 ? expected : transfer.written));
    return Outcome::Done;
  }
  // The server cannot continue this part: start over rather than fail.
  if (resume_from > 0 && (code == CURLE_RANGE_ERROR || (code == CURLE_HTTP_RETURNED_ERROR && status == 416))) {
    return Outcome::StartOver;
  }
  const std::string detail_text = error_text[0] != '\0' ? error_text : curl_easy_strerror(code);
  switch (code) {
    case CURLE_HTTP_RETURNED_ERROR:
      throw IoError(url, 0, detail::concat("HTTP ", status, " (", status_meaning(status), ")"));
    case CURLE_PARTIAL_FILE:
      throw IoError(url, 0,
                    detail::concat("transfer cut short after ", resume_from + transfer.written, " of ",
                                   expected > 0 ? std::to_string(resume_from + expected) : std::string("?"),
                                   " bytes (", detail_text, "); the part is kept in ", part_file.string(),
                                   " and the next attempt resumes from there"));
    case CURLE_OPERATION_TIMEDOUT:
      throw IoError(url, 0,
                    detail::concat("no data for ", options.stall_seconds, " s or connection timed out after ",
                                   resume_from + transfer.written, " bytes (", detail_text,
                                   "); the next attempt resumes"));
    default: throw IoError(url, 0, detail::concat(detail_text, " (libcurl error ", static_cast<int>(code), ")"));
  }
}

}  // namespace

DownloadResult download_file(const std::string& url, const fs::path& part_file, const DownloadOptions& options) {
  initialise_curl_once();
  const std::string name = part_file.string();
  Descriptor out{::open(part_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)};
  if (out.fd < 0) throw IoError(name, 0, detail::concat("cannot open for writing: ", std::strerror(errno)));
  struct stat info{};
  if (::fstat(out.fd, &info) != 0) throw IoError(name, 0, detail::concat("fstat failed: ", std::strerror(errno)));
  DownloadResult result;
  try {
    if (transfer_once(url, out.fd, part_file, info.st_size, options, result.received) == Outcome::StartOver) {
      if (::ftruncate(out.fd, 0) != 0) throw IoError(name, 0, detail::concat("cannot truncate: ", std::strerror(errno)));
      transfer_once(url, out.fd, part_file, 0, options, result.received);
    }
  } catch (...) {
    // Keep a part worth resuming; an empty one (refused, 404) is removed.
    if (::fstat(out.fd, &info) == 0 && info.st_size == 0) ::unlink(part_file.c_str());
    throw;
  }
  if (::fsync(out.fd) != 0) throw IoError(name, 0, detail::concat("fsync failed: ", std::strerror(errno)));
  if (::fstat(out.fd, &info) != 0) throw IoError(name, 0, detail::concat("fstat failed: ", std::strerror(errno)));
  result.size = info.st_size;
  return result;
}

}  // namespace sgnn::graph_io
