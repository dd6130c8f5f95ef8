// A whole file mapped read-only into memory (mmap, private: a write through a
// tensor over it changes this process's copy, never the file). Shared by the
// tensors viewing it (Tensor::from_external), unmapped when the last goes.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>

namespace sgnn::graph_io {

class MappedFile {
 public:
  // Throws IoError(path, 0, reason) when the file cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return static_cast<const char*>(data_); }
  char* mutable_data() const { return static_cast<char*>(data_); }  // copy-on-write pages
  std::size_t size() const { return size_; }

 private:
  MappedFile(void* data, std::size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace sgnn::graph_io
