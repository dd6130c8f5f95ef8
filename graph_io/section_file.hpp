// Section file: a versioned, checksummed container of named host tensors and
// text metadata, written atomically. The adjacency cache and the training
// checkpoints are section files.
//
// Layout (little-endian):
//   "SGNNSEC\0" | u32 container version | u32 0x01020304 (byte order) |
//   u64 header bytes | header: kind, kind version, fingerprint, metadata
//   (key/value strings), section table (name, dtype, shape, offset, bytes,
//   CRC32 of the payload) | u32 CRC32 of everything before it |
//   payloads, each 64-byte aligned.
//
// Writing goes to a temporary file in the same folder, is fsync'ed and then
// renamed over `path` (and the folder fsync'ed): a reader sees the old file
// or the new one, never a mix, even after a crash.
// Reading checks the magic, versions, both checksums, sizes and offsets
// against the file length: a truncated, corrupt, foreign or stale file throws
// IoError(path, 0, reason) and never yields data.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"

namespace sgnn::graph_io {

struct SectionFile {
  std::string kind;           // what the file holds, e.g. "adjacency-cache", "checkpoint" (<= 64 bytes)
  uint32_t kind_version = 1;  // version of that kind's content; a reader refuses other versions
  uint64_t fingerprint = 0;   // the writer's key for the content (e.g. a hash of the inputs), 0 = none
  std::map<std::string, std::string> metadata;
  // Named tensors (names unique, non-empty). Written from any device; read back as host tensors.
  std::vector<std::pair<std::string, Tensor>> sections;

  void add(std::string name, const Tensor& tensor) { sections.emplace_back(std::move(name), tensor); }
  bool has(std::string_view name) const;
  // The section's tensor; throws IoError(source, 0, "missing section ...") when absent.
  const Tensor& at(std::string_view name) const;
  // Metadata value; throws IoError when absent.
  const std::string& meta(const std::string& key) const;

  std::string source;  // the file it was read from (set by read_section_file)

  // Mapped files only (map_section_file): the stored CRC-32 of each section
  // whose payload has not been checked yet. Checking is left to the user of
  // a section, who may fold it into a pass it makes anyway (an upload).
  std::map<std::string, uint32_t, std::less<>> unverified_crc;
  // Checks a mapped section's payload against its CRC (nothing to do when it
  // was read, not mapped, or checked already). IoError when it differs.
  void verify(std::string_view name);
  void verify_all();
};

// Writes `contents` atomically to `path` (parent folders are created).
// Throws IoError when the file cannot be written (the old file, if any, is kept)
// and InvalidArgument for undefined tensors or repeated/empty names.
void write_section_file(const std::filesystem::path& path, const SectionFile& contents);

// Reads and verifies a section file whose kind and kind_version must equal
// the expected ones. Throws IoError naming the problem (missing, truncated,
// corrupt, not a section file, other kind, other version).
SectionFile read_section_file(const std::filesystem::path& path, std::string_view expected_kind,
                              uint32_t expected_kind_version);
// The same for a reader of several versions of its kind: any kind_version in
// [oldest_kind_version, newest_kind_version] is accepted (the caller reads
// SectionFile::kind_version).
SectionFile read_section_file(const std::filesystem::path& path, std::string_view expected_kind,
                              uint32_t oldest_kind_version, uint32_t newest_kind_version);

// The same checks of the header, but the payloads are mapped (mmap), not
// read: each section is a host tensor over the mapping (kept alive by its
// tensors) and its checksum is NOT verified here (see unverified_crc).
// A file changed or truncated by someone else while mapped is undefined
// behaviour, as for any mapping: the writers here only ever replace files.
SectionFile map_section_file(const std::filesystem::path& path, std::string_view expected_kind,
                             uint32_t expected_kind_version);
// The same for a reader of versions [oldest_kind_version, newest_kind_version].
SectionFile map_section_file(const std::filesystem::path& path, std::string_view expected_kind,
                             uint32_t oldest_kind_version, uint32_t newest_kind_version);

// Host tensors to `device` through the staged upload (core/staged_upload.hpp);
// those with an expected CRC-32 are checked from the bytes as they are
// staged, so the check costs no pass of its own. On the CPU the host tensors
// themselves are returned, after a host check. IoError(source, 0, "corrupt:
// checksum mismatch in section NAME") when one differs.
struct CheckedUpload {
  std::string name;
  Tensor host;
  std::optional<uint32_t> expected_crc;  // nullopt: already checked, or not checksummed
};
std::vector<Tensor> upload_checked(const std::vector<CheckedUpload>& uploads, Device device, const std::string& source);

// The named sections of `contents` on `device`, in order, through
// upload_checked: sections still unverified (mapped) are checked on the way
// and then marked verified.
std::vector<Tensor> upload_sections(SectionFile& contents, const std::vector<std::string>& names, Device device);

// CRC32 (zlib's polynomial) of `bytes` bytes, computed in parallel blocks.
uint32_t crc32_of(const void* data, std::size_t bytes);

}  // namespace sgnn::graph_io
