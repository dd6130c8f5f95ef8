// Small files for reader tests: a fresh temporary folder per test, text
// written plain or gzip-compressed, environment variables set for a scope,
// and the bundled datasets.
#pragma once

#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "graph_io/dataset_locations.hpp"

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

// Sets (or, with nullptr, unsets) an environment variable for its lifetime,
// then restores the previous value.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* previous = std::getenv(name)) previous_ = previous;
    if (value != nullptr) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnvironment() {
    if (previous_) setenv(name_.c_str(), previous_->c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

// The bundled copy of a citation dataset (cora, citeseer) beside the test
// program (graph_io::bundled_dataset_folder()); IoError when it is missing.
inline std::filesystem::path bundled_dataset(const std::string& name) {
  const std::optional<std::filesystem::path> bundled = graph_io::bundled_dataset_folder();
  if (!bundled || !std::filesystem::exists(*bundled / name / "raw")) {
    throw IoError(name, 0, "the bundled dataset was not found beside the test program (share/sparsegnn/datasets)");
  }
  return *bundled / name;
}

}  // namespace sgnn::testing
