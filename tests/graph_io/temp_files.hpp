// Small files for reader tests: a fresh temporary folder per test, text
// written plain or gzip-compressed, and the real datasets when present.
#pragma once

#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

namespace sgnn::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "sgnn-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

inline std::string read_bytes(const std::filesystem::path& file) {
  std::string bytes(std::filesystem::file_size(file), '\0');
  std::FILE* handle = std::fopen(file.c_str(), "rb");
  if (handle == nullptr) throw std::runtime_error("cannot read " + file.string());
  const std::size_t got = std::fread(bytes.data(), 1, bytes.size(), handle);
  std::fclose(handle);
  bytes.resize(got);
  return bytes;
}

inline std::string gzip_bytes(const std::string& text) {
  uLong bound = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(bound, '\0');
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

inline void write_gzip(const std::filesystem::path& file, const std::string& text) {
  write_text(file, gzip_bytes(text));
}

// The folder holding cora/citeseer: $SGNN_DATA, else a data/ or shared/data/
// folder beside the source tree or one of its ancestors.
inline std::optional<std::filesystem::path> find_real_data(const std::string& name) {
  if (const char* variable = std::getenv("SGNN_DATA"); variable && *variable) {
    if (std::filesystem::exists(std::filesystem::path(variable) / name)) return std::filesystem::path(variable) / name;
  }
  const char* test_data = std::getenv("SGNN_TEST_DATA");
  std::filesystem::path folder = test_data ? std::filesystem::path(test_data) : std::filesystem::current_path();
  for (int up = 0; up < 6 && !folder.empty(); ++up) {
    for (const char* sub : {"data", "shared/data"}) {
      if (std::filesystem::exists(folder / sub / name / "raw")) return folder / sub / name;
    }
    if (folder == folder.parent_path()) break;
    folder = folder.parent_path();
  }
  return std::nullopt;
}

}  // namespace sgnn::testing
