// Atomic file replacement, shared by every writer of the library (section
// files: caches and checkpoints; SVG pictures).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

namespace sgnn::graph_io {

// Writes a temporary file in the folder of `path` with `write_contents(fd)`,
// fsyncs it, renames it over `path` and fsyncs the folder (best effort): a
// reader sees the old file or the complete new one, never a part. The folder
// must exist. On any failure the temporary file is removed and IoError(path,
// 0, reason) is thrown (IoError from `write_contents` passes through).
void write_file_atomically(const std::filesystem::path& path, const std::function<void(int fd)>& write_contents);

// fsyncs a folder so a rename inside it survives a crash; best effort (some
// file systems refuse it), never throws.
void fsync_folder(const std::filesystem::path& folder);

// Writes all `bytes` to `fd`, retrying short writes and EINTR; IoError(name,
// 0, reason) when the write fails.
void write_all(int fd, const void* data, std::size_t bytes, const std::string& name);

}  // namespace sgnn::graph_io
