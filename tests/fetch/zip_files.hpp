// Zip archives for the unpack and fetch tests, written with libarchive (the
// library that reads them in graph_io/archive.cpp), including entries no
// honest archive has: "../" paths, absolute paths, links.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace sgnn::testing {

struct ZipEntry {
  enum class Kind { File, Folder, Symlink };
  std::string path;
  std::string contents;  // a file's bytes, or a symlink's target
  Kind kind = Kind::File;
};

// Writes `entries` in order; `store` keeps the bytes uncompressed (so a test
// can find and corrupt them).
inline void write_zip(const std::filesystem::path& file, const std::vector<ZipEntry>& entries, bool store = false) {
  std::filesystem::create_directories(file.parent_path());
  struct archive* writer = archive_write_new();
  archive_write_set_format_zip(writer);
  if (store) archive_write_set_options(writer, "zip:compression=store");
  if (archive_write_open_filename(writer, file.c_str()) != ARCHIVE_OK) {
    archive_write_free(writer);
    throw std::runtime_error("cannot write " + file.string());
  }
  for (const ZipEntry& entry : entries) {
    struct archive_entry* header = archive_entry_new();
    archive_entry_set_pathname(header, entry.path.c_str());
    switch (entry.kind) {
      case ZipEntry::Kind::File:
        archive_entry_set_filetype(header, AE_IFREG);
        archive_entry_set_perm(header, 0644);
        archive_entry_set_size(header, static_cast<la_int64_t>(entry.contents.size()));
        break;
      case ZipEntry::Kind::Folder:
        archive_entry_set_filetype(header, AE_IFDIR);
        archive_entry_set_perm(header, 0755);
        break;
      case ZipEntry::Kind::Symlink:
        archive_entry_set_filetype(header, AE_IFLNK);
        archive_entry_set_perm(header, 0777);
        archive_entry_set_symlink(header, entry.contents.c_str());
        break;
    }
    if (archive_write_header(writer, header) != ARCHIVE_OK) {
      const std::string reason = archive_error_string(writer);
      archive_entry_free(header);
      archive_write_free(writer);
      throw std::runtime_error("libarchive refused entry " + entry.path + ": " + reason);
    }
    if (entry.kind == ZipEntry::Kind::File && !entry.contents.empty()) {
      archive_write_data(writer, entry.contents.data(), entry.contents.size());
    }
    archive_entry_free(header);
  }
  archive_write_close(writer);
  archive_write_free(writer);
}

}  // namespace sgnn::testing
