#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "graph_io/dataset_locations.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/ogb_writer.hpp"
#include "tests/graph_io/temp_files.hpp"

using namespace sgnn;
using namespace sgnn::graph_io;
using sgnn::testing::ScopedEnvironment;
using sgnn::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A 3-node dataset in OGB layout under `folder`.
void write_tiny_dataset(const fs::path& folder) {
  Dataset dataset;
  dataset.edges.num_nodes = 3;
  dataset.edges.source = Tensor::from_vector(std::vector<int32_t>{0, 1}, {2});
  dataset.edges.target = Tensor::from_vector(std::vector<int32_t>{1, 2}, {2});
  write_ogb_dataset(dataset, folder);
}

}  // namespace

TEST_CASE("user_data_folder follows XDG_DATA_HOME, else HOME/.local/share, and ignores relative paths") {
  {
    const ScopedEnvironment xdg("XDG_DATA_HOME", "/somewhere/xdg");
    const ScopedEnvironment home("HOME", "/home/someone");
    CHECK(user_data_folder() == fs::path("/somewhere/xdg/sparsegnn"));
  }
  {
    const ScopedEnvironment xdg("XDG_DATA_HOME", "relative/xdg");  // invalid by the XDG rules
    const ScopedEnvironment home("HOME", "/home/someone");
    CHECK(user_data_folder() == fs::path("/home/someone/.local/share/sparsegnn"));
  }
  {
    const ScopedEnvironment xdg("XDG_DATA_HOME", nullptr);
    const ScopedEnvironment home("HOME", nullptr);
    CHECK_FALSE(user_data_folder().has_value());
  }
}

TEST_CASE("the bundled Cora and Citeseer are found beside the test program") {
  const std::optional<fs::path> bundled = bundled_dataset_folder();
  REQUIRE(bundled.has_value());
  CHECK(bundled->filename() == "datasets");
  CHECK(fs::exists(*bundled / "cora" / "raw" / "edge.csv.gz"));
  CHECK(fs::exists(*bundled / "citeseer" / "raw" / "node-feat.csv.gz"));
  CHECK(fs::exists(*bundled / "LICENSE.planetoid"));
}

TEST_CASE("dataset_search_path: SGNN_DATA, ./data, the user data folder, then the bundled folder") {
  TempDir dir;
  const ScopedEnvironment data("SGNN_DATA", (dir / "own").c_str());
  const ScopedEnvironment xdg("XDG_DATA_HOME", (dir / "xdg").c_str());
  const std::vector<fs::path> places = dataset_search_path();
  REQUIRE(places.size() == 4);
  CHECK(places[0] == dir / "own");
  CHECK(places[1] == fs::path("data"));
  CHECK(places[2] == dir / "xdg" / "sparsegnn");
  CHECK(places[3] == *bundled_dataset_folder());
}

TEST_CASE("a bare name loads from the bundled folder when nothing else holds it") {
  TempDir dir;
  const ScopedEnvironment data("SGNN_DATA", nullptr);
  const ScopedEnvironment xdg("XDG_DATA_HOME", (dir / "xdg").c_str());
  const Dataset cora = load_dataset("cora");
  CHECK(cora.num_nodes() == 2708);
  CHECK(cora.source.find("share/sparsegnn/datasets/cora") != std::string::npos);
}

TEST_CASE("a dataset in the user data folder is found by name, before the bundled one") {
  TempDir dir;
  const ScopedEnvironment data("SGNN_DATA", nullptr);
  const ScopedEnvironment xdg("XDG_DATA_HOME", (dir / "xdg").c_str());
  write_tiny_dataset(dir / "xdg" / "sparsegnn" / "cora");  // shadows the bundled Cora
  const Dataset shadowed = load_dataset("cora");
  CHECK(shadowed.num_nodes() == 3);
  CHECK(shadowed.source.find((dir / "xdg").string()) != std::string::npos);
  // SGNN_DATA comes first.
  write_tiny_dataset(dir / "own" / "cora");
  const ScopedEnvironment own("SGNN_DATA", (dir / "own").c_str());
  CHECK(load_dataset("cora").source.find((dir / "own").string()) != std::string::npos);
}
