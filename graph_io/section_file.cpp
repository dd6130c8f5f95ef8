#include "graph_io/section_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <set>

#include "core/staged_upload.hpp"
#include "graph_io/atomic_file.hpp"
#include "graph_io/mapped_file.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'S', 'G', 'N', 'N', 'S', 'E', 'C', '\0'};
constexpr uint32_t kContainerVersion = 1;
constexpr uint32_t kByteOrderMark = 0x01020304u;
constexpr std::size_t kPreambleBytes = 8 + 4 + 4 + 8;  // magic, version, byte order, header bytes
constexpr std::size_t kAlignment = 64;
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 26;
constexpr std::size_t kMaxNameBytes = 4096;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
// Fuzzing builds only (scripts/fuzz.sh): a wrong CRC is ignored, so the
// fuzzer reaches the header parser and the loaders' structural checks behind
// the checksums instead of stopping at them. Never defined in a real build.
constexpr bool kIgnoreChecksums = true;
#else
constexpr bool kIgnoreChecksums = false;
#endif

std::size_t aligned(std::size_t offset) { return (offset + kAlignment - 1) / kAlignment * kAlignment; }

// Appends plain values to a byte buffer.
class ByteWriter {
 public:
  template <typename T>
  void put(const T& value) {
    const auto* bytes = reinterpret_cast<const char*>(&value);
    buffer_.insert(buffer_.end(), bytes, bytes + sizeof(T));
  }
  void put_string(std::string_view text) {
    put(static_cast<uint32_t>(text.size()));
    buffer_.insert(buffer_.end(), text.begin(), text.end());
  }
  std::vector<char>& buffer() { return buffer_; }

 private:
  std::vector<char> buffer_;
};

// Reads plain values from a byte buffer; any read past the end is a corrupt header.
class ByteReader {
 public:
  ByteReader(std::string_view bytes, std::string file) : bytes_(bytes), file_(std::move(file)) {}
  template <typename T>
  T get() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }
  std::string get_string() {
    const uint32_t size = get<uint32_t>();
    if (size > kMaxNameBytes * 256) corrupt("string length out of range");
    need(size);
    std::string text(bytes_.substr(position_, size));
    position_ += size;
    return text;
  }
  [[noreturn]] void corrupt(const std::string& why) const {
    throw IoError(file_, 0, detail::concat("corrupt section file header: ", why));
  }

 private:
  void need(std::size_t count) const {
    if (count > bytes_.size() - position_) corrupt("ends early");
  }
  std::string_view bytes_;
  std::size_t position_ = 0;
  std::string file_;
};

struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly `bytes` at `offset`; false when the file ends first.
bool read_at(int fd, void* data, std::size_t bytes, uint64_t offset, const std::string& name) {
  char* cursor = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd, cursor, std::min<std::size_t>(bytes, std::size_t{1} << 30), static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw IoError(name, 0, detail::concat("read failed: ", std::strerror(errno)));
    }
    if (got == 0) return false;
    cursor += got;
    bytes -= static_cast<std::size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

struct SectionEntry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t offset;
  uint64_t bytes;
  uint32_t crc;
};

// One piece of a section's payload: read and checksummed by one thread.
struct Chunk {
  std::size_t section;
  uint64_t begin;  // within the section
  uint64_t bytes;
};

// Reads every section's payload into `tensors` and checks its CRC. Chunks of
// all sections are read by parallel threads straight into the destination
// (so the page faults of fresh memory and the copies from the page cache are
// spread over the cores) and checksummed while still in cache; the chunk CRCs
// are then combined in order into each section's CRC.
void read_payloads(int fd, const std::vector<SectionEntry>& entries, std::vector<Tensor>& tensors,
                   const std::string& name) {
  constexpr uint64_t kChunkBytes = uint64_t{4} << 20;
  std::vector<Chunk> chunks;
  for (std::size_t s = 0; s < entries.size(); ++s) {
    for (uint64_t begin = 0; begin < entries[s].bytes; begin += kChunkBytes) {
      chunks.push_back({s, begin, std::min(kChunkBytes, entries[s].bytes - begin)});
    }
  }
  std::vector<uLong> crcs(chunks.size(), 0);
  std::vector<unsigned char> complete(chunks.size(), 1);
  std::vector<std::exception_ptr> failures(chunks.size());
  const auto count = static_cast<int64_t>(chunks.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
  for (int64_t c = 0; c < count; ++c) {
    const Chunk& chunk = chunks[static_cast<std::size_t>(c)];
    auto* destination = static_cast<unsigned char*>(tensors[chunk.section].raw_data()) + chunk.begin;
    try {  // read_at throws on an I/O error; exceptions must not leave the parallel region
      if (!read_at(fd, destination, chunk.bytes, entries[chunk.section].offset + chunk.begin, name)) {
        complete[static_cast<std::size_t>(c)] = 0;
        continue;
      }
    } catch (...) {
      failures[static_cast<std::size_t>(c)] = std::current_exception();
      continue;
    }
    crcs[static_cast<std::size_t>(c)] = crc32(0L, destination, static_cast<uInt>(chunk.bytes));
  }
  std::size_t c = 0;
  for (std::size_t s = 0; s < entries.size(); ++s) {
    uLong crc = 0;  // CRC of no bytes
    for (; c < chunks.size() && chunks[c].section == s; ++c) {
      if (failures[c]) std::rethrow_exception(failures[c]);
      if (complete[c] == 0) {
        throw IoError(name, 0, detail::concat("truncated: section \"", entries[s].name, "\" ends past the end of the file"));
      }
      crc = chunks[c].begin == 0 ? crcs[c] : crc32_combine(crc, crcs[c], static_cast<z_off_t>(chunks[c].bytes));
    }
    if (static_cast<uint32_t>(crc) != entries[s].crc && !kIgnoreChecksums) {
      throw IoError(name, 0, detail::concat("corrupt: checksum mismatch in section \"", entries[s].name, "\""));
    }
  }
}

}  // namespace

uint32_t crc32_of(const void* data, std::size_t bytes) {
  constexpr std::size_t kBlock = std::size_t{1} << 24;
  const auto* base = static_cast<const Bytef*>(data);
  const std::size_t blocks = (bytes + kBlock - 1) / kBlock;
  if (blocks <= 1) return static_cast<uint32_t>(crc32(0L, base, static_cast<uInt>(bytes)));
  std::vector<uLong> partial(blocks);
#pragma omp parallel for schedule(static)
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t length = std::min(kBlock, bytes - b * kBlock);
    partial[b] = crc32(0L, base + b * kBlock, static_cast<uInt>(length));
  }
  uLong crc = partial[0];
  for (std::size_t b = 1; b < blocks; ++b) {
    const std::size_t length = std::min(kBlock, bytes - b * kBlock);
    crc = crc32_combine(crc, partial[b], static_cast<z_off_t>(length));
  }
  return static_cast<uint32_t>(crc);
}

bool SectionFile::has(std::string_view name) const {
  return std::any_of(sections.begin(), sections.end(), [&](const auto& s) { return s.first == name; });
}

const Tensor& SectionFile::at(std::string_view name) const {
  for (const auto& [section_name, tensor] : sections) {
    if (section_name == name) return tensor;
  }
  throw IoError(source, 0, detail::concat("missing section \"", name, "\" in this ", kind, " file"));
}

const std::string& SectionFile::meta(const std::string& key) const {
  const auto found = metadata.find(key);
  if (found == metadata.end()) throw IoError(source, 0, detail::concat("missing metadata \"", key, "\" in this ", kind, " file"));
  return found->second;
}

void write_section_file(const fs::path& path, const SectionFile& contents) {
  const std::string name = path.string();
  SGNN_CHECK(!contents.kind.empty() && contents.kind.size() <= 64, "section file kind must have 1..64 bytes, got \"",
             contents.kind, "\"");
  std::set<std::string> names;
  std::vector<Tensor> host;
  for (const auto& [section_name, tensor] : contents.sections) {
    SGNN_CHECK(!section_name.empty() && section_name.size() <= kMaxNameBytes, "section name must have 1..",
               kMaxNameBytes, " bytes");
    SGNN_CHECK(names.insert(section_name).second, "section \"", section_name, "\" given twice");
    SGNN_CHECK(tensor.defined(), "section \"", section_name, "\" is an undefined tensor");
    host.push_back(tensor.to(Device::cpu()));
  }

  // Header: offsets depend on the header's own size, which does not depend on
  // the offsets' values, so lay it out once with zeros, then for real.
  auto build_header = [&](const std::vector<uint64_t>& offsets, const std::vector<uint32_t>& crcs) {
    ByteWriter header;
    header.put_string(contents.kind);
    header.put(contents.kind_version);
    header.put(contents.fingerprint);
    header.put(static_cast<uint32_t>(contents.metadata.size()));
    for (const auto& [key, value] : contents.metadata) {
      header.put_string(key);
      header.put_string(value);
    }
    header.put(static_cast<uint32_t>(host.size()));
    for (std::size_t s = 0; s < host.size(); ++s) {
      header.put_string(contents.sections[s].first);
      header.put(static_cast<uint8_t>(host[s].dtype()));
      header.put(static_cast<uint8_t>(host[s].dim()));
      for (const int64_t extent : host[s].shape()) header.put(extent);
      header.put(offsets[s]);
      header.put(static_cast<uint64_t>(host[s].nbytes()));
      header.put(crcs[s]);
    }
    ByteWriter file;
    file.buffer().insert(file.buffer().end(), kMagic, kMagic + 8);
    file.put(kContainerVersion);
    file.put(kByteOrderMark);
    file.put(static_cast<uint64_t>(kPreambleBytes + header.buffer().size() + 4));
    file.buffer().insert(file.buffer().end(), header.buffer().begin(), header.buffer().end());
    file.put(crc32_of(file.buffer().data(), file.buffer().size()));
    return std::move(file.buffer());
  };
  std::vector<uint64_t> offsets(host.size(), 0);
  std::vector<uint32_t> crcs(host.size(), 0);
  std::size_t cursor = aligned(build_header(offsets, crcs).size());
  for (std::size_t s = 0; s < host.size(); ++s) {
    offsets[s] = cursor;
    crcs[s] = crc32_of(host[s].raw_data(), host[s].nbytes());
    cursor = aligned(cursor + host[s].nbytes());
  }
  const std::vector<char> header = build_header(offsets, crcs);

  std::error_code error;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), error);
  write_file_atomically(path, [&](int fd) {
    static const char zeros[kAlignment] = {};
    write_all(fd, header.data(), header.size(), name);
    std::size_t written = header.size();
    for (std::size_t s = 0; s < host.size(); ++s) {
      write_all(fd, zeros, offsets[s] - written, name);
      write_all(fd, host[s].raw_data(), host[s].nbytes(), name);
      written = offsets[s] + host[s].nbytes();
    }
  });
}

namespace {

// The preamble's header size, after checking magic, byte order and version.
uint64_t check_preamble(const char* preamble, uint64_t file_bytes, const std::string& name) {
  if (std::memcmp(preamble, kMagic, 8) != 0) throw IoError(name, 0, "not a sparsegnn section file (bad magic)");
  uint32_t container_version = 0, byte_order = 0;
  uint64_t header_bytes = 0;
  std::memcpy(&container_version, preamble + 8, 4);
  std::memcpy(&byte_order, preamble + 12, 4);
  std::memcpy(&header_bytes, preamble + 16, 8);
  if (byte_order != kByteOrderMark) throw IoError(name, 0, "written on a machine of the other byte order");
  if (container_version != kContainerVersion) {
    throw IoError(name, 0, detail::concat("section file version ", container_version, ", this build reads version ",
                                          kContainerVersion));
  }
  if (header_bytes < kPreambleBytes + 4 || header_bytes > kMaxHeaderBytes) {
    throw IoError(name, 0, detail::concat("corrupt section file header: header size ", header_bytes));
  }
  if (header_bytes > file_bytes) throw IoError(name, 0, "truncated: the file ends inside its header");
  return header_bytes;
}

// Parses a whole header (preamble included, CRC last) into the file's kind,
// metadata and section table; payloads are left to the caller.
SectionFile parse_header(std::string_view header, uint64_t file_bytes, const std::string& name,
                         std::string_view expected_kind, uint32_t oldest_kind_version,
                         uint32_t newest_kind_version, std::vector<SectionEntry>& entries) {
  uint32_t stored_crc = 0;
  std::memcpy(&stored_crc, header.data() + header.size() - 4, 4);
  if (crc32_of(header.data(), header.size() - 4) != stored_crc && !kIgnoreChecksums) {
    throw IoError(name, 0, "corrupt section file header: checksum mismatch");
  }
  ByteReader reader(header.substr(kPreambleBytes, header.size() - kPreambleBytes - 4), name);
  SectionFile contents;
  contents.source = name;
  contents.kind = reader.get_string();
  contents.kind_version = reader.get<uint32_t>();
  contents.fingerprint = reader.get<uint64_t>();
  if (contents.kind != expected_kind) {
    throw IoError(name, 0, detail::concat("holds a \"", contents.kind, "\", expected a \"", expected_kind, "\""));
  }
  if (contents.kind_version < oldest_kind_version || contents.kind_version > newest_kind_version) {
    throw IoError(name, 0, oldest_kind_version == newest_kind_version
                               ? detail::concat(contents.kind, " format version ", contents.kind_version,
                                                ", this build reads version ", newest_kind_version)
                               : detail::concat(contents.kind, " format version ", contents.kind_version,
                                                ", this build reads versions ", oldest_kind_version, " to ",
                                                newest_kind_version));
  }
  const uint32_t metadata_count = reader.get<uint32_t>();
  for (uint32_t m = 0; m < metadata_count; ++m) {
    std::string key = reader.get_string();
    contents.metadata[key] = reader.get_string();
  }
  const uint32_t section_count = reader.get<uint32_t>();
  std::set<std::string> names;
  for (uint32_t s = 0; s < section_count; ++s) {
    SectionEntry entry;
    entry.name = reader.get_string();
    if (!names.insert(entry.name).second) reader.corrupt(detail::concat("section ", entry.name, " appears twice"));
    const auto dtype = reader.get<uint8_t>();
    if (dtype > static_cast<uint8_t>(kLastDType)) {
      reader.corrupt(detail::concat("section ", entry.name, " has an unknown dtype"));
    }
    entry.dtype = static_cast<DType>(dtype);
    const auto rank = reader.get<uint8_t>();
    if (rank > 8) reader.corrupt(detail::concat("section ", entry.name, " has rank ", int{rank}));
    uint64_t numel = 1;
    for (uint8_t d = 0; d < rank; ++d) {
      const auto extent = reader.get<int64_t>();
      if (extent < 0 || extent > (int64_t{1} << 40)) reader.corrupt(detail::concat("section ", entry.name, " has extent ", extent));
      entry.shape.push_back(extent);
      numel *= static_cast<uint64_t>(extent);
      if (numel > (uint64_t{1} << 42)) reader.corrupt(detail::concat("section ", entry.name, " is implausibly large"));
    }
    entry.offset = reader.get<uint64_t>();
    entry.bytes = reader.get<uint64_t>();
    entry.crc = reader.get<uint32_t>();
    if (entry.bytes != numel * dtype_size(entry.dtype)) {
      reader.corrupt(detail::concat("section ", entry.name, " size does not match its shape"));
    }
    if (entry.offset < header.size() || entry.offset > file_bytes || entry.bytes > file_bytes - entry.offset) {
      throw IoError(name, 0, detail::concat("truncated: section \"", entry.name, "\" lies beyond the end of the file"));
    }
    // The writer aligns every section; a mapped section read in place must be
    // (an int32 at an odd address is undefined behaviour; found by fuzz_cache_file).
    if (entry.offset % kAlignment != 0) {
      reader.corrupt(detail::concat("section ", entry.name, " starts at byte ", entry.offset, ", not a multiple of ",
                                    kAlignment));
    }
    entries.push_back(std::move(entry));
  }
  return contents;
}

}  // namespace

SectionFile read_section_file(const fs::path& path, std::string_view expected_kind, uint32_t expected_kind_version) {
  return read_section_file(path, expected_kind, expected_kind_version, expected_kind_version);
}

SectionFile read_section_file(const fs::path& path, std::string_view expected_kind, uint32_t oldest_kind_version,
                              uint32_t newest_kind_version) {
  const std::string name = path.string();
  FileDescriptor in{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) throw IoError(name, 0, detail::concat("cannot open: ", std::strerror(errno)));
  std::error_code error;
  const uint64_t file_bytes = fs::file_size(path, error);
  if (error) throw IoError(name, 0, "cannot determine the file size");

  char preamble[kPreambleBytes];
  if (!read_at(in.fd, preamble, kPreambleBytes, 0, name)) throw IoError(name, 0, "truncated: shorter than a section file header");
  const uint64_t header_bytes = check_preamble(preamble, file_bytes, name);
  std::string header(static_cast<std::size_t>(header_bytes), '\0');
  if (!read_at(in.fd, header.data(), header.size(), 0, name)) throw IoError(name, 0, "truncated: the file ends inside its header");
  std::vector<SectionEntry> entries;
  SectionFile contents =
      parse_header(header, file_bytes, name, expected_kind, oldest_kind_version, newest_kind_version, entries);
  std::vector<Tensor> tensors;
  for (const SectionEntry& entry : entries) tensors.push_back(Tensor::empty(entry.shape, entry.dtype));
  read_payloads(in.fd, entries, tensors, name);
  for (std::size_t s = 0; s < entries.size(); ++s) contents.sections.emplace_back(entries[s].name, std::move(tensors[s]));
  return contents;
}

SectionFile map_section_file(const fs::path& path, std::string_view expected_kind, uint32_t expected_kind_version) {
  return map_section_file(path, expected_kind, expected_kind_version, expected_kind_version);
}

SectionFile map_section_file(const fs::path& path, std::string_view expected_kind, uint32_t oldest_kind_version,
                             uint32_t newest_kind_version) {
  const std::string name = path.string();
  const std::shared_ptr<const MappedFile> mapped = MappedFile::open(path);
  const uint64_t file_bytes = mapped->size();
  if (file_bytes < kPreambleBytes) throw IoError(name, 0, "truncated: shorter than a section file header");
  const uint64_t header_bytes = check_preamble(mapped->data(), file_bytes, name);
  std::vector<SectionEntry> entries;
  SectionFile contents = parse_header(std::string_view(mapped->data(), static_cast<std::size_t>(header_bytes)),
                                      file_bytes, name, expected_kind, oldest_kind_version, newest_kind_version,
                                      entries);
  for (const SectionEntry& entry : entries) {
    contents.sections.emplace_back(
        entry.name, Tensor::from_external(mapped->mutable_data() + entry.offset, entry.shape, entry.dtype, mapped));
    contents.unverified_crc[entry.name] = entry.crc;
  }
  return contents;
}

std::vector<Tensor> upload_checked(const std::vector<CheckedUpload>& uploads, Device device, const std::string& source) {
  const auto mismatch = [&](const CheckedUpload& upload) {
    return IoError(source, 0, detail::concat("corrupt: checksum mismatch in section \"", upload.name, "\""));
  };
  std::vector<Tensor> result;
  if (device.is_cpu()) {
    for (const CheckedUpload& upload : uploads) {
      if (upload.expected_crc && crc32_of(upload.host.raw_data(), upload.host.nbytes()) != *upload.expected_crc &&
          !kIgnoreChecksums) {
        throw mismatch(upload);
      }
      result.push_back(upload.host);
    }
    return result;
  }
  std::vector<memory::HostToDeviceCopy> copies;
  std::vector<std::vector<uint32_t>> piece_crcs;  // per upload, per staged piece
  for (const CheckedUpload& upload : uploads) {
    result.push_back(Tensor::empty(upload.host.shape(), upload.host.dtype(), device));
    copies.push_back({result.back().raw_data(), upload.host.raw_data(), upload.host.nbytes()});
    piece_crcs.emplace_back((upload.host.nbytes() + memory::kStagedPieceBytes - 1) / memory::kStagedPieceBytes);
  }
  memory::upload_staged(copies, device, [&](std::size_t copy, std::size_t offset, const void* data, std::size_t bytes) {
    if (!uploads[copy].expected_crc) return;
    piece_crcs[copy][offset / memory::kStagedPieceBytes] =
        static_cast<uint32_t>(crc32(0L, static_cast<const Bytef*>(data), static_cast<uInt>(bytes)));
  });
  for (std::size_t u = 0; u < uploads.size(); ++u) {
    if (!uploads[u].expected_crc) continue;
    uLong crc = 0;  // the CRC of no bytes
    for (std::size_t p = 0; p < piece_crcs[u].size(); ++p) {
      const std::size_t length = std::min(memory::kStagedPieceBytes, copies[u].bytes - p * memory::kStagedPieceBytes);
      crc = p == 0 ? piece_crcs[u][p] : crc32_combine(crc, piece_crcs[u][p], static_cast<z_off_t>(length));
    }
    if (static_cast<uint32_t>(crc) != *uploads[u].expected_crc && !kIgnoreChecksums) throw mismatch(uploads[u]);
  }
  return result;
}

std::vector<Tensor> upload_sections(SectionFile& contents, const std::vector<std::string>& names, Device device) {
  std::vector<CheckedUpload> uploads;
  for (const std::string& name : names) {
    const auto crc = contents.unverified_crc.find(name);
    uploads.push_back({name, contents.at(name),
                       crc == contents.unverified_crc.end() ? std::nullopt : std::optional<uint32_t>(crc->second)});
  }
  std::vector<Tensor> result = upload_checked(uploads, device, contents.source);
  for (const std::string& name : names) contents.unverified_crc.erase(name);
  return result;
}

void SectionFile::verify(std::string_view name) {
  const auto found = unverified_crc.find(name);
  if (found == unverified_crc.end()) return;
  const Tensor& tensor = at(name);
  if (crc32_of(tensor.raw_data(), tensor.nbytes()) != found->second && !kIgnoreChecksums) {
    throw IoError(source, 0, detail::concat("corrupt: checksum mismatch in section \"", name, "\""));
  }
  unverified_crc.erase(found);
}

void SectionFile::verify_all() {
  while (!unverified_crc.empty()) verify(std::string(unverified_crc.begin()->first));
}

}  // namespace sgnn::graph_io
