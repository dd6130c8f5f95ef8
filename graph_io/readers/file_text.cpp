#include "graph_io/readers/file_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>

#include "core/error.hpp"
#include "graph_io/mapped_file.hpp"

namespace sgnn::graph_io {

namespace {

// `file` opened for reading, closed when this goes. Throws IoError for a
// missing path, a folder, or a file that cannot be opened.
class ReadDescriptor {
 public:
  explicit ReadDescriptor(const std::filesystem::path& file) {
    std::error_code error;
    const auto status = std::filesystem::status(file, error);
    if (error || !std::filesystem::exists(status)) throw IoError(file.string(), 0, "file not found");
    if (std::filesystem::is_directory(status)) throw IoError(file.string(), 0, "is a directory, expected a file");
    descriptor_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor_ < 0) throw IoError(file.string(), 0, detail::concat("cannot open: ", std::strerror(errno)));
  }
  ~ReadDescriptor() { ::close(descriptor_); }
  ReadDescriptor(const ReadDescriptor&) = delete;
  ReadDescriptor& operator=(const ReadDescriptor&) = delete;
  int get() const { return descriptor_; }

 private:
  int descriptor_ = -1;
};

// Every byte left in `descriptor` (a file, a pipe, a device); `expected_size`:
// the size if known (read in one go, then one more read sees the end).
std::string read_all(int descriptor, std::size_t expected_size, const std::string& name) {
  std::string bytes(expected_size + 1, '\0');
  std::size_t used = 0;
  for (;;) {
    if (used == bytes.size()) bytes.resize(std::max<std::size_t>(bytes.size() * 2, std::size_t{1} << 20));
    const ssize_t got = ::read(descriptor, bytes.data() + used, bytes.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw IoError(name, 0, detail::concat("read error: ", std::strerror(errno)));
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  bytes.resize(used);
  return bytes;
}

// `bytes` less a leading UTF-8 byte order mark (spreadsheet exports write one; it is not data).
std::string_view without_byte_order_mark(std::string_view bytes) {
  return bytes.starts_with("\xEF\xBB\xBF") ? bytes.substr(3) : bytes;
}

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view compressed, const std::string& name) {
  z_stream stream{};
  // 16 + MAX_WBITS: gzip wrapper only (a zlib or raw stream is not a .gz file).
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw IoError(name, 0, "cannot initialise zlib");
  struct Ender {
    z_stream* s;
    ~Ender() { inflateEnd(s); }
  } ender{&stream};

  std::string out;
  // The last 4 bytes hold the (first member's) size mod 2^32: a good first guess.
  std::size_t guess = compressed.size() * 4;
  if (compressed.size() >= 18) {
    uint32_t isize = 0;
    std::memcpy(&isize, compressed.data() + compressed.size() - 4, 4);
    // Deflate expands at most ~1032:1, so a larger ISIZE is a corrupt or foreign trailer.
    guess = std::max<std::size_t>(guess, std::min<std::size_t>(isize, compressed.size() * 1032));
  }
  out.resize(std::max<std::size_t>(guess, 64));
  std::size_t produced = 0;
  std::size_t consumed = 0;
  for (;;) {
    const std::size_t chunk_in = std::min<std::size_t>(compressed.size() - consumed, std::numeric_limits<uInt>::max());
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + consumed));
    stream.avail_in = static_cast<uInt>(chunk_in);
    if (produced == out.size()) out.resize(out.size() * 2);
    const std::size_t room = std::min<std::size_t>(out.size() - produced, std::numeric_limits<uInt>::max());
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(room);
    const int status = inflate(&stream, Z_NO_FLUSH);
    consumed += chunk_in - stream.avail_in;
    produced += room - stream.avail_out;
    if (status == Z_STREAM_END) {
      if (consumed == compressed.size()) break;
      // Another gzip member follows (concatenated .gz files are valid gzip).
      if (!is_gzip(compressed.substr(consumed))) {
        throw IoError(name, 0, detail::concat("trailing garbage after the gzip stream at byte ", consumed));
      }
      if (inflateReset(&stream) != Z_OK) throw IoError(name, 0, "cannot reset zlib");
      continue;
    }
    if (status == Z_DATA_ERROR || status == Z_NEED_DICT) {
      throw IoError(name, 0, detail::concat("corrupt gzip data (", stream.msg ? stream.msg : "data error", ")"));
    }
    if (status == Z_MEM_ERROR) throw IoError(name, 0, "out of memory while decompressing");
    const bool input_exhausted = consumed == compressed.size();
    if ((status == Z_BUF_ERROR || status == Z_OK) && input_exhausted && stream.avail_out > 0) {
      throw IoError(name, 0, "truncated gzip stream: the file ends before the compressed data does");
    }
    if (status != Z_OK && status != Z_BUF_ERROR) {
      throw IoError(name, 0, detail::concat("gzip error ", status));
    }
  }
  out.resize(produced);
  return out;
}

std::string read_file_text(const std::filesystem::path& file) { return std::string(map_file_text(file).view()); }

FileText map_file_text(const std::filesystem::path& file) {
  const std::string name = file.string();
  const ReadDescriptor descriptor(file);
  struct stat status {};
  const bool regular = ::fstat(descriptor.get(), &status) == 0 && S_ISREG(status.st_mode);
  const auto size = regular ? static_cast<std::size_t>(status.st_size) : std::size_t{0};
  FileText text;
  std::string_view bytes;
  if (size > 0) {
    try {
      std::shared_ptr<const MappedFile> mapped = MappedFile::open(file);
      bytes = std::string_view(mapped->data(), mapped->size());
      text.owner_ = std::move(mapped);
    } catch (const IoError&) {  // a file system without mmap: read it below
    }
  }
  if (text.owner_ == nullptr) {  // empty, a pipe, or not mappable: read it
    auto owned = std::make_shared<const std::string>(read_all(descriptor.get(), size, name));
    bytes = *owned;
    text.owner_ = std::move(owned);
  }
  if (is_gzip(bytes)) {
    auto owned = std::make_shared<const std::string>(gunzip(bytes, name));
    bytes = *owned;
    text.owner_ = std::move(owned);
  }
  text.view_ = without_byte_order_mark(bytes);
  return text;
}

}  // namespace sgnn::graph_io
