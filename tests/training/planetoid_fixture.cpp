#include "tests/training/planetoid_fixture.hpp"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

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

// Every line of a gzip CSV file, split at commas into numbers.
std::vector<std::vector<double>> read_rows(const fs::path& file) {
  gzFile handle = gzopen(file.c_str(), "rb");
  if (handle == nullptr) throw IoError(file.string(), 0, "cannot open");
  std::vector<std::vector<double>> rows;
  std::string line;
  char buffer[1 << 16];
  while (gzgets(handle, buffer, sizeof buffer) != nullptr) {
    line += buffer;
    if (line.empty() || line.back() != '\n') continue;
    std::vector<double> row;
    std::stringstream stream(line);
    std::string cell;
    while (std::getline(stream, cell, ',')) row.push_back(std::stod(cell));
    rows.push_back(std::move(row));
    line.clear();
  }
  gzclose(handle);
  return rows;
}

Tensor index_tensor(const fs::path& file) {
  std::vector<int32_t> ids;
  for (const auto& row : read_rows(file)) ids.push_back(static_cast<int32_t>(row.at(0)));
  return Tensor::from_vector(ids, {static_cast<int64_t>(ids.size())});
}

}  // namespace

Planetoid load_planetoid(const std::string& name, bool symmetric_normalization) {
  const fs::path raw = find_dataset(name) / "raw";
  const auto feature_rows = read_rows(raw / "node-feat.csv.gz");
  const auto label_rows = read_rows(raw / "node-label.csv.gz");
  const auto edge_rows = read_rows(raw / "edge.csv.gz");
  const auto nodes = static_cast<int64_t>(feature_rows.size());

  Planetoid out;
  out.features = static_cast<int64_t>(feature_rows.at(0).size());
  std::vector<float> features;
  for (const auto& row : feature_rows) {
    double total = 0;
    for (double v : row) total += v;
    for (double v : row) features.push_back(static_cast<float>(total > 0 ? v / total : 0.0));
  }
  std::vector<int32_t> labels;
  for (const auto& row : label_rows) {
    labels.push_back(static_cast<int32_t>(row.at(0)));
    out.classes = std::max<int64_t>(out.classes, labels.back() + 1);
  }
  std::vector<int32_t> sources, targets;
  for (const auto& row : edge_rows) {
    sources.push_back(static_cast<int32_t>(row.at(0)));
    targets.push_back(static_cast<int32_t>(row.at(1)));
  }
  graph_io::EdgeList edges;
  edges.num_nodes = nodes;
  edges.source = Tensor::from_vector(sources, {static_cast<int64_t>(sources.size())});
  edges.target = Tensor::from_vector(targets, {static_cast<int64_t>(targets.size())});
  graph_io::PrepareOptions options;
  options.symmetrize = true;
  options.self_loops = graph_io::SelfLoops::Add;
  options.normalization =
      symmetric_normalization ? graph_io::Normalization::Symmetric : graph_io::Normalization::None;
  out.adjacency = std::make_shared<Adjacency>(graph_io::prepare_adjacency(edges, options));

  out.data.graph = training::GraphInput(*out.adjacency);
  out.data.features = Tensor::from_vector(features, {nodes, out.features});
  out.data.labels = Tensor::from_vector(labels, {nodes});
  out.data.train_index = index_tensor(raw / "split" / "train.csv.gz");
  out.data.valid_index = index_tensor(raw / "split" / "valid.csv.gz");
  out.data.test_index = index_tensor(raw / "split" / "test.csv.gz");
  return out;
}

}  // namespace sgnn::testing
