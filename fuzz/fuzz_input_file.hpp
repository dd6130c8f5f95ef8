// Shared by the fuzz targets: the fuzzer's bytes as a file the readers can
// open, and the rule that only sgnn::Error may escape a reader.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace sgnn::fuzz {

// A per-process scratch folder under $TMPDIR (or /tmp), removed at exit.
inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path folder = [] {
    std::filesystem::path base = std::filesystem::temp_directory_path() / ("sgnn-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(base);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("sgnn-fuzz-" + std::to_string(::getpid())),
                                  ignored);
    });
    return base;
  }();
  return folder;
}

inline void write_file(const std::filesystem::path& file, const uint8_t* data, std::size_t size) {
  std::filesystem::create_directories(file.parent_path());
  std::FILE* out = std::fopen(file.c_str(), "wb");
  if (out == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, out) != size) std::abort();
  std::fclose(out);
}

inline void write_file(const std::filesystem::path& file, const std::string& text) {
  write_file(file, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace sgnn::fuzz
