#include "graph_io/dataset_catalog.hpp"

namespace sgnn::graph_io {

namespace {

// Planetoid's published files (Yang et al. 2016), the location PyG downloads from.
constexpr const char* kPlanetoidUrl = "https://github.com/kimiyoung/planetoid/raw/master/data";
// OGB's node-property archives (ogb/nodeproppred/master.csv names the files).
constexpr const char* kOgbUrl = "https://snap.stanford.edu/ogb/data/nodeproppred";

constexpr int64_t kMB = 1000 * 1000;

int64_t total_bytes(const std::vector<RemoteFile>& files) {
  int64_t total = 0;
  for (const RemoteFile& file : files) total += file.bytes;
  return total;
}

// Sizes and SHA-256 computed from the files as published in
// kimiyoung/planetoid/data (the copies under shared/data/planetoid-raw).
std::vector<RemoteFile> planetoid_files(const std::string& name) {
  struct Part {
    const char* part;
    int64_t cora_bytes;
    const char* cora_sha256;
    int64_t citeseer_bytes;
    const char* citeseer_sha256;
  };
  static const Part kParts[] = {
      {"x", 22119, "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab", 31087,
       "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6"},
      {"tx", 148025, "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a", 260321,
       "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21"},
      {"allx", 257305, "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543", 595021,
       "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668"},
      {"y", 4054, "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1", 3014,
       "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924"},
      {"ty", 28135, "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad", 24135,
       "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce"},
      {"ally", 47959, "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71", 55623,
       "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95"},
      {"graph", 59847, "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d", 61987,
       "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7"},
      {"test.index", 5000, "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875", 5000,
       "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4"},
  };
  std::vector<RemoteFile> files;
  for (const Part& part : kParts) {
    RemoteFile file;
    file.name = "ind." + name + "." + part.part;
    if (name == "cora") {
      file.bytes = part.cora_bytes;
      file.sha256 = part.cora_sha256;
    } else if (name == "citeseer") {
      file.bytes = part.citeseer_bytes;
      file.sha256 = part.citeseer_sha256;
    }  // pubmed: its files could not be obtained here, so no size or checksum is known
    files.push_back(std::move(file));
  }
  return files;
}

CatalogEntry planetoid(const std::string& name, const std::string& description, ExpectedCounts expected) {
  CatalogEntry entry;
  entry.name = name;
  entry.description = description;
  entry.format = CatalogFormat::Planetoid;
  entry.base_url = kPlanetoidUrl;
  entry.files = planetoid_files(name);
  entry.download_bytes_exact = entry.files.front().bytes >= 0;
  entry.download_bytes = entry.download_bytes_exact ? total_bytes(entry.files) : -1;
  entry.expected = expected;
  return entry;
}

// Download sizes of the OGB archives are approximate: as OGB's own downloader
// announces them (rounded), not measured here.
CatalogEntry ogb(const std::string& name, const std::string& archive, const std::string& description,
                 int64_t approximate_bytes, ExpectedCounts expected) {
  CatalogEntry entry;
  entry.name = name;
  entry.description = description;
  entry.format = CatalogFormat::OgbZip;
  entry.base_url = kOgbUrl;
  entry.files = {RemoteFile{archive + ".zip", -1, ""}};
  entry.archive_folder = archive;
  entry.download_bytes = approximate_bytes;
  entry.expected = expected;
  return entry;
}

std::vector<CatalogEntry> make_catalog() {
  std::vector<CatalogEntry> entries;
  // Counts: PyG's Planetoid processing (shared/data/README.md) and OGB's
  // published statistics (ogb.stanford.edu/docs/nodeprop, master.csv).
  entries.push_back(planetoid("cora", "Planetoid citation graph (Sen et al. 2008), public split",
                              {2708, 10556, 1433, 7, 140, 500, 1000}));
  entries.push_back(planetoid("citeseer", "Planetoid citation graph (Sen et al. 2008), public split",
                              {3327, 9104, 3703, 6, 120, 500, 1000}));
  entries.push_back(planetoid("pubmed", "Planetoid citation graph (Namata et al. 2012), public split",
                              {19717, 88648, 500, 3, 60, 500, 1000}));
  entries.push_back(ogb("ogbn-arxiv", "arxiv", "OGB arXiv citations (directed), time split", 81 * kMB,
                        {169343, 1166243, 128, 40, 90941, 29799, 48603}));
  CatalogEntry products = ogb("ogbn-products", "products",
                              "OGB Amazon co-purchases, sales-rank split (edges stored once; GCN symmetrises)",
                              1480 * kMB, {2449029, 61859140, 100, 47, 196615, 39323, 2213091});
  products.warning = "a ~1.5 GB download; checking it loads the whole dataset (2,449,029 x 100 features: 0.98 GB)";
  entries.push_back(std::move(products));
  CatalogEntry mag = ogb("ogbn-mag", "mag", "OGB MAG: its paper-cites-paper graph (the other node types dropped)",
                         400 * kMB, {736389, 5416271, 128, 349, 629571, 64879, 41939});
  mag.format = CatalogFormat::OgbMagPapers;
  entries.push_back(std::move(mag));
  CatalogEntry proteins = ogb("ogbn-proteins", "proteins", "OGB protein associations, species split",
                              216 * kMB, {});
  proteins.refusal =
      "not loadable here: a multi-label task (112 binary labels per node) without node features, and the reader "
      "and models do single-label classification on node features";
  entries.push_back(std::move(proteins));
  CatalogEntry papers = ogb("ogbn-papers100M", "papers100M-bin",
                            "OGB papers, 111,059,956 nodes and 1,615,685,872 edges, time split", 57000 * kMB, {});
  papers.refusal =
      "not loadable here: OGB ships it as NumPy .npz binaries, which the reader does not read (and its 128 float "
      "features alone take 56.9 GB of memory)";
  entries.push_back(std::move(papers));
  return entries;
}

}  // namespace

const std::vector<CatalogEntry>& dataset_catalog() {
  static const std::vector<CatalogEntry> catalog = make_catalog();
  return catalog;
}

const CatalogEntry* find_catalog_entry(std::string_view name) {
  for (const CatalogEntry& entry : dataset_catalog()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string remote_file_url(const CatalogEntry& entry, const RemoteFile& file, const std::string& mirror) {
  std::string base = mirror.empty() ? entry.base_url : mirror;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/" + file.name;
}

}  // namespace sgnn::graph_io
