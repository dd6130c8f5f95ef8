// Whole-file reads for the text readers: a file's bytes, transparently
// decompressed when it is gzip (recognised by its magic bytes, not its name).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace sgnn::graph_io {

// A file's text for the parsers, without a copy when the file is plain: a
// read-only mapping of it (a read() into a buffer costs a copy and a zeroed
// page per 4 KiB, on one thread, before any parsing can start), else the
// bytes read (a pipe) or decompressed (gzip), held here. A leading UTF-8 byte
// order mark is skipped. view() stays valid while this object (or a copy) lives.
// (As with any mapping, a file cut short by another process while it is being
// read ends the process with SIGBUS; the readers never write their inputs.)
class FileText {
 public:
  std::string_view view() const { return view_; }

 private:
  friend FileText map_file_text(const std::filesystem::path& file);
  std::shared_ptr<const void> owner_;  // the mapping or the bytes
  std::string_view view_;
};

// The (decompressed) text of `file`, without a leading UTF-8 byte order mark.
// Throws IoError(file, 0, reason) when the file is missing, unreadable, or a
// gzip stream that is corrupt, truncated or followed by trailing garbage.
FileText map_file_text(const std::filesystem::path& file);

// The same text as an owned string (a copy: for small files).
std::string read_file_text(const std::filesystem::path& file);

// Decompresses gzip data held in memory (one or more concatenated members).
// `name` is used in error messages. Throws IoError as read_file_text does.
std::string gunzip(std::string_view compressed, const std::string& name);

// True when `bytes` starts with the gzip magic 1f 8b.
bool is_gzip(std::string_view bytes);

}  // namespace sgnn::graph_io
