// The datasets sgnn_data can fetch: where each is published, its files with
// size and SHA-256 where they are known, and the counts a correct copy has.
//
// A file's checksum is written here only when it was computed from the
// published file itself; a file without one is "unverified": its download is
// checked by the archive's own CRCs and by loading the result and comparing
// the counts, and its size and SHA-256 are recorded in the dataset's
// FETCHED.txt. Sizes marked approximate are what the publisher announces,
// shown by `sgnn_data list`, never checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sgnn::graph_io {

enum class CatalogFormat : unsigned char {
  Planetoid,      // ind.<name>.<part> files, converted to the OGB raw layout
  OgbZip,         // an OGB node-property zip: <folder>/raw/..., <folder>/split/<type>/...
  OgbMagPapers,   // ogbn-mag's zip (heterogeneous): its paper-cites-paper graph is kept
};

struct RemoteFile {
  std::string name;    // file name under the base URL (and in a mirror)
  int64_t bytes = -1;  // exact size, -1 when not known
  std::string sha256;  // lower-case hex; empty when unverified
  bool verified() const { return !sha256.empty(); }
};

// What a correct copy holds once loaded (read_ogb_dataset); -1: not checked.
struct ExpectedCounts {
  int64_t nodes = -1;
  int64_t edges = -1;  // directed edges as stored in edge.csv
  int64_t features = -1;
  int64_t classes = -1;
  int64_t train = -1, valid = -1, test = -1;
};

struct CatalogEntry {
  std::string name;         // what the user types: "cora", "ogbn-arxiv"
  std::string description;  // one line for `sgnn_data list`
  CatalogFormat format = CatalogFormat::OgbZip;
  std::string base_url;     // published location; a file's URL is <base_url>/<file name>
  std::vector<RemoteFile> files;
  std::string archive_folder;         // OGB zips: the folder at the archive's top ("arxiv"); "" = find it
  int64_t download_bytes = -1;        // exact when every file's size is known, else approximate or -1
  bool download_bytes_exact = false;
  ExpectedCounts expected;
  std::string refusal;  // non-empty: the reader cannot load it; fetch refuses and says why
  std::string warning;  // non-empty: said before fetching (size, memory)
};

// Every entry, in the order `sgnn_data list` shows them.
const std::vector<CatalogEntry>& dataset_catalog();

// The entry named `name`, or nullptr.
const CatalogEntry* find_catalog_entry(std::string_view name);

// The URL of `file`: <base>/<file.name>, where <base> is `mirror` when
// non-empty (trailing slashes ignored), else the entry's base_url.
std::string remote_file_url(const CatalogEntry& entry, const RemoteFile& file, const std::string& mirror);

}  // namespace sgnn::graph_io
