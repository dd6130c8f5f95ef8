#include "tests/training/planetoid_fixture.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "graph_io/load_dataset.hpp"
#include "graph_io/prepare.hpp"

namespace sgnn::testing {

namespace {

namespace fs = std::filesystem;

fs::path find_dataset(const std::string& name) {
  std::vector<fs::path> candidates;
  if (const char* data = std::getenv("SGNN_DATA")) candidates.emplace_back(fs::path(data) / name);
  if (const char* test_data = std::getenv("SGNN_TEST_DATA")) {
    const fs::path root = fs::path(test_data).parent_path().parent_path();
    candidates.push_back(root / "data" / name);
    candidates.push_back(root.parent_path() / "shared" / "data" / name);
    candidates.push_back(root.parent_path().parent_path() / "shared" / "data" / name);
  }
  candidates.push_back(fs::path("data") / name);
  candidates.push_back(fs::path("..") / "shared" / "data" / name);
  std::string searched;
  for (const fs::path& candidate : candidates) {
    if (fs::exists(candidate / "raw" / "edge.csv.gz")) return candidate;
    searched += " " + candidate.string();
  }
  throw IoError(name, 0, "dataset not found; searched:" + searched);
}

}  // namespace

bool planetoid_available(const std::string& name) {
  try {
    find_dataset(name);
    return true;
  } catch (const IoError& error) {
    MESSAGE("skipped: " << std::string(error.what()));
    return false;
  }
}

std::string planetoid_path(const std::string& name) { return find_dataset(name).string(); }

Planetoid load_planetoid(const std::string& name, bool symmetric_normalization) {
  const graph_io::Dataset dataset = graph_io::load_dataset(find_dataset(name).string());
  const int64_t nodes = dataset.num_nodes();
  Planetoid out;
  out.features = dataset.features.size(1);
  out.classes = dataset.num_classes;
  // Row-normalised features (rows summing to 1; zero rows stay zero).
  std::vector<float> features = dataset.features.to_vector<float>();
  for (int64_t i = 0; i < nodes; ++i) {
    float* row = features.data() + i * out.features;
    double total = 0;
    for (int64_t j = 0; j < out.features; ++j) total += static_cast<double>(row[j]);
    if (total <= 0) continue;
    for (int64_t j = 0; j < out.features; ++j) row[j] = static_cast<float>(static_cast<double>(row[j]) / total);
  }
  graph_io::PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = graph_io::SelfLoops::Add;
  options.normalization =
      symmetric_normalization ? graph_io::Normalization::Symmetric : graph_io::Normalization::None;
  out.adjacency = std::make_shared<Adjacency>(graph_io::prepare_adjacency(dataset.edges, options));

  out.data.graph = training::GraphInput(*out.adjacency);
  out.data.features = Tensor::from_vector(features, {nodes, out.features});
  out.data.labels = dataset.labels;
  out.data.train_index = dataset.train_index;
  out.data.valid_index = dataset.valid_index;
  out.data.test_index = dataset.test_index;
  return out;
}

}  // namespace sgnn::testing
