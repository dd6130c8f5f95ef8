#include "tests/training/planetoid_fixture.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <optional>

#include "graph_io/dataset_locations.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/prepare.hpp"

namespace sgnn::testing {

namespace {

namespace fs = std::filesystem;

// The bundled copy, never a user's folder: tests read exactly the files the repository ships.
fs::path find_dataset(const std::string& name) {
  const std::optional<fs::path> bundled = graph_io::bundled_dataset_folder();
  if (!bundled) {
    throw IoError(name, 0, "the bundled datasets were not found beside the test program (share/sparsegnn/datasets "
                           "in the build tree: build the target sgnn_bundled_datasets)");
  }
  return *bundled / name;
}

}  // namespace

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
