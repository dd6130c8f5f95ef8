// Unpacks a zip archive with libarchive, refusing anything that could land
// outside the target folder.
//
//   unpack_zip(archive, target)
//     archive  a .zip file (zip64 included; stored or deflated entries)
//     target   a folder that must not exist yet; it is created and receives
//              the entries under their relative paths
//   Refused, with IoError(archive, 0, reason) naming the entry: an absolute
//   path, a path with a ".." component, a symbolic or hard link, a device or
//   other special entry, an encrypted entry. A corrupt archive (bad CRC,
//   truncated data, not a zip) throws IoError too. On any error `target` is
//   removed with everything unpacked so far: the caller sees all or nothing.
//   Returns the number of regular files written.
#pragma once

#include <cstdint>
#include <filesystem>

namespace sgnn::graph_io {

int64_t unpack_zip(const std::filesystem::path& archive, const std::filesystem::path& target);

}  // namespace sgnn::graph_io
