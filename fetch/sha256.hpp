// SHA-256 of a file (OpenSSL's libcrypto), for checking downloads against
// published checksums and recording what was fetched.
#pragma once

#include <filesystem>
#include <string>

namespace sgnn::graph_io {

// Lower-case hex digest (64 characters) of the file's bytes, read in 1 MiB
// blocks. Throws IoError(file, 0, reason) when the file cannot be read.
std::string sha256_file(const std::filesystem::path& file);

}  // namespace sgnn::graph_io
