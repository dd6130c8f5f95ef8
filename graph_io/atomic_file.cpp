#include "graph_io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace sgnn::graph_io {

namespace fs = std::filesystem;

namespace {

struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void fsync_folder(const fs::path& folder) {
  FileDescriptor dir{::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd >= 0) (void)::fsync(dir.fd);  // best effort: some file systems refuse it
}

void write_all(int fd, const void* data, std::size_t bytes, const std::string& name) {
  const char* cursor = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t written = ::write(fd, cursor, std::min<std::size_t>(bytes, std::size_t{1} << 30));
    if (written < 0) {
      if (errno == EINTR) continue;
      throw IoError(name, 0, detail::concat("write failed: ", std::strerror(errno)));
    }
    cursor += written;
    bytes -= static_cast<std::size_t>(written);
  }
}

void write_file_atomically(const fs::path& path, const std::function<void(int fd)>& write_contents) {
  const std::string name = path.string();
  // Unique per process and call, so concurrent writers never share a temporary.
  static std::atomic<uint64_t> counter{0};
  const fs::path temporary = name + detail::concat(".tmp-", ::getpid(), "-", counter.fetch_add(1));
  try {
    FileDescriptor out{::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (out.fd < 0) {
      throw IoError(name, 0, detail::concat("cannot create a file there (", temporary.filename().string(),
                                            "): ", std::strerror(errno)));
    }
    write_contents(out.fd);
    if (::fsync(out.fd) != 0) throw IoError(name, 0, detail::concat("fsync failed: ", std::strerror(errno)));
    const int fd = out.fd;
    out.fd = -1;
    if (::close(fd) != 0) throw IoError(name, 0, detail::concat("close failed: ", std::strerror(errno)));
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
      throw IoError(name, 0, detail::concat("cannot rename the temporary file into place: ", std::strerror(errno)));
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  fsync_folder(path.parent_path());
}

}  // namespace sgnn::graph_io
