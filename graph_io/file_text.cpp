#include "graph_io/file_text.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "core/error.hpp"

namespace sgnn::graph_io {

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

std::string read_raw_bytes(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code error;
  const auto status = std::filesystem::status(file, error);
  if (error || !std::filesystem::exists(status)) throw IoError(name, 0, "file not found");
  if (std::filesystem::is_directory(status)) throw IoError(name, 0, "is a directory, expected a file");
  std::unique_ptr<std::FILE, FileCloser> handle(std::fopen(name.c_str(), "rb"));
  if (!handle) throw IoError(name, 0, detail::concat("cannot open: ", std::strerror(errno)));
  std::string bytes;
  const auto size = std::filesystem::file_size(file, error);
  // Read the expected size plus one byte (to see EOF), then grow if the file was longer.
  std::size_t block = error ? (std::size_t{1} << 20) : static_cast<std::size_t>(size) + 1;
  std::size_t used = 0;
  for (;;) {
    bytes.resize(used + block);
    const std::size_t got = std::fread(bytes.data() + used, 1, block, handle.get());
    used += got;
    if (got < block) break;
    block = std::max<std::size_t>(block, std::size_t{1} << 20);
  }
  bytes.resize(used);
  if (std::ferror(handle.get())) throw IoError(name, 0, detail::concat("read error: ", std::strerror(errno)));
  return bytes;
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

std::string read_file_text(const std::filesystem::path& file) {
  std::string bytes = read_raw_bytes(file);
  if (is_gzip(bytes)) bytes = gunzip(bytes, file.string());
  // A UTF-8 byte order mark (spreadsheet exports write one) is not data.
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.erase(0, 3);
  return bytes;
}

}  // namespace sgnn::graph_io
