#include "fetch/archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "graph_io/atomic_file.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

using ArchiveHandle = std::unique_ptr<struct archive, int (*)(struct archive*)>;

std::string archive_error(struct archive* reader) {
  const char* text = archive_error_string(reader);
  return text != nullptr ? text : "unknown libarchive error";
}

// The entry's path relative to the target, or an IoError saying why it is
// refused. Checked on the path as written in the archive, before anything
// touches the disk.
fs::path safe_relative_path(const std::string& archive_name, const char* raw_path) {
  if (raw_path == nullptr || *raw_path == '\0') throw IoError(archive_name, 0, "an entry has an empty path");
  const std::string text = raw_path;
  const fs::path path(text);
  if (path.is_absolute() || text.front() == '/') {
    throw IoError(archive_name, 0, detail::concat("entry \"", text, "\" has an absolute path; refused"));
  }
  fs::path relative;
  for (const fs::path& part : path) {
    if (part == "..") {
      throw IoError(archive_name, 0,
                    detail::concat("entry \"", text, "\" escapes the target folder (\"..\" in its path); refused"));
    }
    if (part == "." || part.empty()) continue;
    relative /= part;
  }
  if (relative.empty()) throw IoError(archive_name, 0, detail::concat("entry \"", text, "\" names no file"));
  return relative;
}

void make_folders(const fs::path& folder, const std::string& entry_name) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    throw IoError(folder.string(), 0, detail::concat("cannot create (entry \"", entry_name, "\"): ", error.message()));
  }
}

struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

void write_entry(struct archive* reader, const std::string& archive_name, const std::string& entry_name,
                 const fs::path& destination) {
  // O_EXCL|O_NOFOLLOW: never write through something already there.
  Descriptor out{::open(destination.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
  if (out.fd < 0) {
    throw IoError(destination.string(), 0,
                  detail::concat("cannot create (entry \"", entry_name, "\"): ", std::strerror(errno)));
  }
  const void* block = nullptr;
  std::size_t size = 0;
  la_int64_t offset = 0;
  int64_t written = 0;
  while (true) {
    const int status = archive_read_data_block(reader, &block, &size, &offset);
    if (status == ARCHIVE_EOF) break;
    // ARCHIVE_WARN is what libarchive's zip reader returns for a CRC mismatch.
    if (status != ARCHIVE_OK) {
      throw IoError(archive_name, 0, detail::concat("entry \"", entry_name, "\": ", archive_error(reader)));
    }
    if (offset != written) {  // a sparse hole: zip has none, so this is a corrupt archive
      throw IoError(archive_name, 0, detail::concat("entry \"", entry_name, "\": unexpected data offset"));
    }
    write_all(out.fd, block, size, destination.string());
    written += static_cast<int64_t>(size);
  }
  if (::fsync(out.fd) != 0) throw IoError(destination.string(), 0, detail::concat("fsync: ", std::strerror(errno)));
}

int64_t unpack_into(const fs::path& archive_path, const fs::path& target) {
  const std::string archive_name = archive_path.string();
  ArchiveHandle reader(archive_read_new(), &archive_read_free);
  if (!reader) throw IoError(archive_name, 0, "archive_read_new failed");
  archive_read_support_format_zip(reader.get());
  if (archive_read_open_filename(reader.get(), archive_path.c_str(), std::size_t{1} << 20) != ARCHIVE_OK) {
    throw IoError(archive_name, 0, detail::concat("cannot open as a zip archive: ", archive_error(reader.get())));
  }
  int64_t files = 0;
  while (true) {
    struct archive_entry* entry = nullptr;
    const int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status != ARCHIVE_OK) {
      throw IoError(archive_name, 0, detail::concat("corrupt archive: ", archive_error(reader.get())));
    }
    const char* raw_name = archive_entry_pathname(entry);
    const std::string entry_name = raw_name != nullptr ? raw_name : "";
    const fs::path relative = safe_relative_path(archive_name, raw_name);
    if (archive_entry_is_encrypted(entry)) {
      throw IoError(archive_name, 0, detail::concat("entry \"", entry_name, "\" is encrypted; refused"));
    }
    if (archive_entry_hardlink(entry) != nullptr || archive_entry_symlink(entry) != nullptr) {
      throw IoError(archive_name, 0, detail::concat("entry \"", entry_name, "\" is a link; refused"));
    }
    const fs::path destination = target / relative;
    switch (archive_entry_filetype(entry)) {
      case AE_IFDIR: make_folders(destination, entry_name); break;
      case AE_IFREG:
        make_folders(destination.parent_path(), entry_name);
        write_entry(reader.get(), archive_name, entry_name, destination);
        ++files;
        break;
      default:
        throw IoError(archive_name, 0,
                      detail::concat("entry \"", entry_name, "\" is not a regular file or folder; refused"));
    }
  }
  return files;
}

}  // namespace

int64_t unpack_zip(const fs::path& archive, const fs::path& target) {
  std::error_code error;
  if (fs::exists(target, error)) {
    throw IoError(target.string(), 0, "the unpack folder already exists; refusing to unpack over it");
  }
  if (!fs::create_directory(target, error)) {
    throw IoError(target.string(), 0, detail::concat("cannot create the unpack folder: ", error.message()));
  }
  try {
    return unpack_into(archive, target);
  } catch (...) {
    fs::remove_all(target, error);
    throw;
  }
}

}  // namespace sgnn::graph_io
