// graph_io::fetch_dataset end to end against tests/tools/range_server.py on
// 127.0.0.1: an OGB zip placed as shipped, ogbn-mag's paper graph assembled,
// Planetoid converted; a wrong checksum, a "../" entry and counts that
// contradict the catalogue place nothing; --force swaps a copy atomically.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "graph_io/dataset_locations.hpp"
#include "fetch/fetch_dataset.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "tests/fetch/local_http_server.hpp"
#include "tests/graph_io/temp_files.hpp"
#include "tests/fetch/zip_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::LocalHttpServer;
using sgnn::testing::TempDir;
using sgnn::testing::ZipEntry;

namespace fs = std::filesystem;

namespace {

// A 4-node graph in OGB's files, gzip-compressed as OGB ships them.
struct TinyGraph {
  std::string edges = "0,1\n1,2\n2,3\n3,0\n0,2\n";
  std::string features = "0.5,1\n1,0\n0,0.25\n1,1\n";
  std::string labels = "0\n1\n2\n1\n";
  std::string train = "0\n1\n", valid = "2\n", test = "3\n";
};

ExpectedCounts tiny_counts() { return {4, 5, 2, 3, 2, 1, 1}; }

std::vector<ZipEntry> ogb_zip_entries(const std::string& folder, const TinyGraph& g) {
  using sgnn::testing::gzip_bytes;
  return {{folder + "/raw/edge.csv.gz", gzip_bytes(g.edges)},
          {folder + "/raw/num-node-list.csv.gz", gzip_bytes("4\n")},
          {folder + "/raw/num-edge-list.csv.gz", gzip_bytes("5\n")},
          {folder + "/raw/node-feat.csv.gz", gzip_bytes(g.features)},
          {folder + "/raw/node-label.csv.gz", gzip_bytes(g.labels)},
          {folder + "/raw/node_year.csv.gz", gzip_bytes("2019\n2020\n2020\n2021\n")},
          {folder + "/split/time/train.csv.gz", gzip_bytes(g.train)},
          {folder + "/split/time/valid.csv.gz", gzip_bytes(g.valid)},
          {folder + "/split/time/test.csv.gz", gzip_bytes(g.test)},
          {folder + "/mapping/nodeidx2paperid.csv.gz", gzip_bytes("node idx,paper id\n0,7\n")},
          {folder + "/RELEASE_v1.txt", ""}};
}

CatalogEntry tiny_ogb_entry(const std::string& name, const std::string& archive) {
  CatalogEntry entry;
  entry.name = name;
  entry.format = CatalogFormat::OgbZip;
  entry.base_url = "http://127.0.0.1:9/unused";  // the tests pass a mirror
  entry.files = {RemoteFile{archive + ".zip", -1, ""}};
  entry.archive_folder = archive;
  entry.expected = tiny_counts();
  return entry;
}

// Everything under `folder`, as relative paths.
std::vector<std::string> tree(const fs::path& folder) {
  std::vector<std::string> paths;
  for (const fs::directory_entry& item : fs::recursive_directory_iterator(folder)) {
    paths.push_back(fs::relative(item.path(), folder).string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

TEST_CASE("fetch_dataset places an OGB zip as OGB ships it, records what it fetched and cleans up") {
  TempDir dir;
  sgnn::testing::write_zip(dir / "served" / "tiny.zip", ogb_zip_entries("tiny", TinyGraph{}));
  LocalHttpServer server(dir / "served");
  FetchOptions options;
  options.destination = dir / "data";
  options.mirror = server.base_url();
  std::vector<std::string> steps;
  options.on_step = [&](const std::string& step) { steps.push_back(step); };
  const FetchResult result = fetch_dataset(tiny_ogb_entry("tiny-ogb", "tiny"), options);
  CHECK(result.folder == dir / "data" / "tiny-ogb");
  CHECK_FALSE(result.already_present);
  CHECK(result.downloaded_bytes == static_cast<int64_t>(fs::file_size(dir / "served" / "tiny.zip")));
  CHECK(tree(result.folder) == std::vector<std::string>{"FETCHED.txt", "RELEASE_v1.txt", "mapping",
                                                        "mapping/nodeidx2paperid.csv.gz", "raw", "raw/edge.csv.gz",
                                                        "raw/node-feat.csv.gz", "raw/node-label.csv.gz",
                                                        "raw/node_year.csv.gz", "raw/num-edge-list.csv.gz",
                                                        "raw/num-node-list.csv.gz", "split", "split/time",
                                                        "split/time/test.csv.gz", "split/time/train.csv.gz",
                                                        "split/time/valid.csv.gz"});
  const Dataset loaded = read_ogb_dataset(result.folder);
  CHECK(loaded.num_nodes() == 4);
  CHECK(loaded.test_index.to_vector<int32_t>() == std::vector<int32_t>{3});
  const std::string record = sgnn::testing::read_bytes(result.folder / "FETCHED.txt");
  CHECK(record.find("url " + server.url("tiny.zip")) != std::string::npos);
  CHECK(record.find("check unverified") != std::string::npos);
  CHECK(tree(dir / "data" / ".sgnn-fetch") == std::vector<std::string>{"tiny-ogb.lock"});
  CHECK(steps.size() == 3);

  // A second fetch does nothing; with replace it swaps in a new copy.
  CHECK(fetch_dataset(tiny_ogb_entry("tiny-ogb", "tiny"), options).already_present);
  options.replace = true;
  sgnn::testing::write_text(result.folder / "marker", "old copy");
  CHECK_FALSE(fetch_dataset(tiny_ogb_entry("tiny-ogb", "tiny"), options).already_present);
  CHECK_FALSE(fs::exists(result.folder / "marker"));
  CHECK(read_ogb_dataset(result.folder).num_nodes() == 4);
  // A replacement that fails its checks leaves the copy in place.
  CatalogEntry contradicting = tiny_ogb_entry("tiny-ogb", "tiny");
  contradicting.expected.nodes = 5;
  sgnn::testing::write_text(result.folder / "marker", "current copy");
  CHECK_THROWS_WITH_AS(fetch_dataset(contradicting, options), doctest::Contains("nodes 4 (expected 5)"), IoError);
  CHECK(sgnn::testing::read_bytes(result.folder / "marker") == "current copy");
  CHECK(read_ogb_dataset(result.folder).num_nodes() == 4);
}

TEST_CASE("fetch_dataset keeps ogbn-mag's paper graph from its heterogeneous layout") {
  TempDir dir;
  using sgnn::testing::gzip_bytes;
  const TinyGraph g;
  const std::string p = "mag/raw/";
  sgnn::testing::write_zip(
      dir / "served" / "mag.zip",
      {{p + "num-node-dict.csv.gz", gzip_bytes("author,field_of_study,institution,paper\n9,3,2,4\n")},
       {p + "triplet-type-list.csv.gz", gzip_bytes("author,writes,paper\npaper,cites,paper\n")},
       {p + "relations/author___writes___paper/edge.csv.gz", gzip_bytes("8,3\n")},
       {p + "relations/paper___cites___paper/edge.csv.gz", gzip_bytes(g.edges)},
       {p + "relations/paper___cites___paper/num-edge-list.csv.gz", gzip_bytes("5\n")},
       {p + "relations/paper___cites___paper/edge_reltype.csv.gz", gzip_bytes("0\n0\n0\n0\n0\n")},
       {p + "node-feat/paper/node-feat.csv.gz", gzip_bytes(g.features)},
       {p + "node-feat/paper/node_year.csv.gz", gzip_bytes("2019\n2020\n2020\n2021\n")},
       {p + "node-label/paper/node-label.csv.gz", gzip_bytes(g.labels)},
       {p + "nodetype-has-label.csv.gz", gzip_bytes("author,field_of_study,institution,paper\nFalse,False,False,True\n")},
       {"mag/split/time/paper/train.csv.gz", gzip_bytes(g.train)},
       {"mag/split/time/paper/valid.csv.gz", gzip_bytes(g.valid)},
       {"mag/split/time/paper/test.csv.gz", gzip_bytes(g.test)},
       {"mag/split/time/nodetype-has-split.csv.gz", gzip_bytes("author,paper\nFalse,True\n")}});
  LocalHttpServer server(dir / "served");
  CatalogEntry entry = tiny_ogb_entry("mag-papers", "mag");
  entry.format = CatalogFormat::OgbMagPapers;
  FetchOptions options;
  options.destination = dir / "data";
  options.mirror = server.base_url();
  const FetchResult result = fetch_dataset(entry, options);
  const Dataset loaded = read_ogb_dataset(result.folder);
  CHECK(loaded.num_nodes() == 4);
  CHECK(loaded.edges.target.to_vector<int32_t>() == std::vector<int32_t>{1, 2, 3, 0, 2});
  CHECK(loaded.labels.to_vector<int32_t>() == std::vector<int32_t>{0, 1, 2, 1});
  CHECK(loaded.train_index.to_vector<int32_t>() == std::vector<int32_t>{0, 1});
  CHECK(fs::exists(result.folder / "raw" / "node_year.csv.gz"));

  // Without the paper count the archive is refused and nothing is placed.
  sgnn::testing::write_zip(dir / "served" / "broken.zip",
                           {{"broken/raw/num-node-dict.csv.gz", gzip_bytes("author\n9\n")}});
  CatalogEntry broken = entry;
  broken.name = "broken-mag";
  broken.files = {RemoteFile{"broken.zip", -1, ""}};
  broken.archive_folder = "broken";
  CHECK_THROWS_WITH_AS(fetch_dataset(broken, options), doctest::Contains("no \"paper\" column"), IoError);
  CHECK_FALSE(fs::exists(dir / "data" / "broken-mag"));
}

TEST_CASE("fetch_dataset places nothing for a wrong checksum, an escaping entry or contradicting counts") {
  TempDir dir;
  sgnn::testing::write_zip(dir / "served" / "tiny.zip", ogb_zip_entries("tiny", TinyGraph{}));
  std::vector<ZipEntry> evil = ogb_zip_entries("evil", TinyGraph{});
  evil.push_back({"evil/../../escaped.txt", "outside"});
  sgnn::testing::write_zip(dir / "served" / "evil.zip", evil);
  LocalHttpServer server(dir / "served");
  FetchOptions options;
  options.destination = dir / "data";
  options.mirror = server.base_url();

  CatalogEntry checked = tiny_ogb_entry("checked", "tiny");
  checked.files.front().sha256 = std::string(64, '0');
  CHECK_THROWS_WITH_AS(fetch_dataset(checked, options), doctest::Contains("sha256 mismatch: expected 0000"), IoError);
  CHECK_FALSE(fs::exists(dir / "data" / "checked"));
  CHECK_FALSE(fs::exists(dir / "data" / ".sgnn-fetch" / "checked" / "download" / "tiny.zip"));
  checked.files.front().sha256.clear();
  checked.files.front().bytes = 12;
  CHECK_THROWS_WITH_AS(fetch_dataset(checked, options), doctest::Contains("size mismatch: expected 12 bytes"), IoError);
  CHECK_FALSE(fs::exists(dir / "data" / "checked"));

  CHECK_THROWS_WITH_AS(fetch_dataset(tiny_ogb_entry("evil", "evil"), options),
                       doctest::Contains("escapes the target folder"), IoError);
  CHECK_FALSE(fs::exists(dir / "data" / "evil"));
  CHECK_FALSE(fs::exists(dir / "escaped.txt"));
  CHECK_FALSE(fs::exists(dir / "data" / "escaped.txt"));
  CHECK_FALSE(fs::exists(dir / "data" / ".sgnn-fetch" / "escaped.txt"));
  CHECK_FALSE(fs::exists(dir / "data" / ".sgnn-fetch" / "evil"));  // the unverified download went too

  CatalogEntry counted = tiny_ogb_entry("counted", "tiny");
  counted.expected.edges = 6;
  CHECK_THROWS_WITH_AS(fetch_dataset(counted, options), doctest::Contains("edges 5 (expected 6)"), IoError);
  CHECK_FALSE(fs::exists(dir / "data" / "counted"));

  CatalogEntry refused = tiny_ogb_entry("unloadable", "tiny");
  refused.refusal = "not loadable here: a reason";
  CHECK_THROWS_WITH_AS(fetch_dataset(refused, options), doctest::Contains("unloadable: not loadable here: a reason"),
                       InvalidArgument);
  CHECK_THROWS_AS(fetch_dataset(tiny_ogb_entry("../up", "tiny"), options), InvalidArgument);

  // A file where the data folder should be: a clear error, nothing written.
  sgnn::testing::write_text(dir / "a-file", "");
  options.destination = dir / "a-file" / "data";
  CHECK_THROWS_WITH_AS(fetch_dataset(tiny_ogb_entry("tiny-ogb", "tiny"), options),
                       doctest::Contains("cannot create the data folder"), IoError);
}

TEST_CASE("fetch_ogb_zip takes any OGB-layout zip, with raw/ at its top or in its one folder") {
  TempDir dir;
  std::vector<ZipEntry> top = ogb_zip_entries("x", TinyGraph{});
  for (ZipEntry& entry : top) entry.path = entry.path.substr(2);  // "x/raw/..." -> "raw/..."
  sgnn::testing::write_zip(dir / "served" / "top.zip", top);
  sgnn::testing::write_zip(dir / "served" / "nested.zip", ogb_zip_entries("whatever", TinyGraph{}));
  sgnn::testing::write_zip(dir / "served" / "flat.zip", {{"README", "no dataset here"}});
  LocalHttpServer server(dir / "served");
  FetchOptions options;
  options.destination = dir / "data";
  CHECK(read_ogb_dataset(fetch_ogb_zip("top", server.url("top.zip"), options).folder).num_nodes() == 4);
  CHECK(read_ogb_dataset(fetch_ogb_zip("nested", server.url("nested.zip"), options).folder).num_nodes() == 4);
  CHECK_THROWS_WITH_AS(fetch_ogb_zip("flat", server.url("flat.zip"), options), doctest::Contains("no raw/ folder"),
                       IoError);
  CHECK_FALSE(fs::exists(dir / "data" / "flat"));
  CHECK_THROWS_AS(fetch_ogb_zip("bad-url", "not a url", options), InvalidArgument);
  CHECK_THROWS_WITH_AS(fetch_ogb_zip("dots", server.base_url() + "/..", options), doctest::Contains("file name"),
                       InvalidArgument);
}

TEST_CASE("fetch_dataset converts Cora's Planetoid files to the bundled Cora, checking each file's sha256") {
  TempDir dir;
  const CatalogEntry* cora = find_catalog_entry("cora");
  REQUIRE(cora != nullptr);
  // The published files, and a mirror where ind.cora.graph has one bit flipped.
  for (const RemoteFile& file : cora->files) {
    const std::string bytes = sgnn::testing::read_bytes(fs::path(SGNN_PLANETOID_FIXTURES) / file.name);
    sgnn::testing::write_text(dir / "served" / file.name, bytes);
    std::string changed = bytes;
    if (file.name == "ind.cora.graph") changed[200] = static_cast<char>(changed[200] ^ 1);
    sgnn::testing::write_text(dir / "served" / "bad" / file.name, changed);
  }
  LocalHttpServer server(dir / "served");
  FetchOptions options;
  options.destination = dir / "data";
  options.mirror = server.url("bad");
  CHECK_THROWS_WITH_AS(fetch_dataset(*cora, options), doctest::Contains("ind.cora.graph: sha256 mismatch"), IoError);
  CHECK_FALSE(fs::exists(dir / "data" / "cora"));
  // The checked files stay for the next attempt, the bad one went.
  CHECK(fs::exists(dir / "data" / ".sgnn-fetch" / "cora" / "download" / "ind.cora.ally"));
  CHECK_FALSE(fs::exists(dir / "data" / ".sgnn-fetch" / "cora" / "download" / "ind.cora.graph"));

  options.mirror = server.base_url();
  std::vector<std::string> steps;
  options.on_step = [&](const std::string& step) { steps.push_back(step); };
  const FetchResult result = fetch_dataset(*cora, options);
  CHECK(std::count_if(steps.begin(), steps.end(), [](const std::string& s) { return s.starts_with("reusing"); }) == 6);
  CHECK(result.downloaded_bytes == cora->files[6].bytes + cora->files[7].bytes);  // graph and test.index only
  const std::optional<fs::path> bundled = bundled_dataset_folder();
  REQUIRE(bundled.has_value());
  const Dataset expected = read_ogb_dataset(*bundled / "cora");
  const Dataset fetched = read_ogb_dataset(result.folder);
  CHECK(fetched.edges.source.to_vector<int32_t>() == expected.edges.source.to_vector<int32_t>());
  CHECK(fetched.edges.target.to_vector<int32_t>() == expected.edges.target.to_vector<int32_t>());
  CHECK(fetched.features.to_vector<float>() == expected.features.to_vector<float>());
  CHECK(fetched.labels.to_vector<int32_t>() == expected.labels.to_vector<int32_t>());
  CHECK(fetched.valid_index.to_vector<int32_t>() == expected.valid_index.to_vector<int32_t>());
  CHECK(sgnn::testing::read_bytes(result.folder / "FETCHED.txt").find("sha256 " + cora->files[0].sha256) !=
        std::string::npos);
}
