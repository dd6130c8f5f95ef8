// Whole-file reads for the text readers: a file's bytes, transparently
// decompressed when it is gzip (recognised by its magic bytes, not its name).
#pragma once

#include <filesystem>
#include <string>

namespace sgnn::graph_io {

// Returns the (decompressed) contents of `file`, without a leading UTF-8 byte
// order mark. Throws IoError(file, 0, reason)
// when the file is missing, unreadable, or a gzip stream that is corrupt,
// truncated or followed by trailing garbage.
std::string read_file_text(const std::filesystem::path& file);

// Decompresses gzip data held in memory (one or more concatenated members).
// `name` is used in error messages. Throws IoError as read_file_text does.
std::string gunzip(std::string_view compressed, const std::string& name);

// True when `bytes` starts with the gzip magic 1f 8b.
bool is_gzip(std::string_view bytes);

}  // namespace sgnn::graph_io
