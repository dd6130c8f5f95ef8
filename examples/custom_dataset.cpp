// custom_dataset: train GCN on your own graph from plain CSV files, using the
// library's C++ API directly (the steps train_gcn hides).
//
//   custom_dataset --edges edges.csv --features features.csv --labels labels.csv
//                  [--train 0.6 --valid 0.2] [--epochs 200] [--seed 0] [--device cpu|cuda]
//
//   edges.csv     one "source,target" pair of node ids per line (0-based)
//   features.csv  one line per node: comma-separated numbers, same count on every line
//   labels.csv    one integer class per node, 0-based
// Nodes are split at random (from --seed) into train / validation / test.
// GCC 12 at -O2 reports a false "potential null pointer dereference" inside
// CLI11 2.1's CLI::detail::split when it is inlined here; the code is fine.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "graph_io/dataset.hpp"
#include "graph_io/feature_transforms.hpp"
#include "graph_io/graph.hpp"
#include "training/nn/models.hpp"
#include "training/optimizer.hpp"
#include "training/trainer.hpp"

using namespace sgnn;

namespace {

// Each line of a CSV file as numbers; IoError with file and line on bad input.
std::vector<std::vector<double>> read_csv(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw IoError(file, 0, "cannot open");
  std::vector<std::vector<double>> rows;
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::vector<double> row;
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) {
      std::size_t used = 0;
      try {
        row.push_back(std::stod(cell, &used));
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0) throw IoError(file, number, "expected a number, got \"" + cell + "\"");
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

int32_t node_id(double value, int64_t nodes, const std::string& file, std::size_t line) {
  if (value < 0 || value >= static_cast<double>(nodes) || value != static_cast<double>(static_cast<int64_t>(value))) {
    throw IoError(file, static_cast<int64_t>(line + 1),
                  "node id " + std::to_string(value) + " is not an integer in [0, " + std::to_string(nodes) + ")");
  }
  return static_cast<int32_t>(value);
}

graph_io::Dataset read_dataset(const std::string& edges_file, const std::string& features_file,
                               const std::string& labels_file) {
  const auto feature_rows = read_csv(features_file);
  const auto label_rows = read_csv(labels_file);
  const auto edge_rows = read_csv(edges_file);
  const auto nodes = static_cast<int64_t>(feature_rows.size());
  if (nodes == 0) throw IoError(features_file, 0, "no nodes");
  if (static_cast<int64_t>(label_rows.size()) != nodes) {
    throw IoError(labels_file, 0, std::to_string(label_rows.size()) + " labels for " + std::to_string(nodes) +
                                      " nodes in " + features_file);
  }
  graph_io::Dataset dataset;
  dataset.name = "custom";
  dataset.source = edges_file;
  const auto width = static_cast<int64_t>(feature_rows[0].size());
  std::vector<float> features;
  for (std::size_t i = 0; i < feature_rows.size(); ++i) {
    if (static_cast<int64_t>(feature_rows[i].size()) != width) {
      throw IoError(features_file, static_cast<int64_t>(i + 1),
                    std::to_string(feature_rows[i].size()) + " values, line 1 has " + std::to_string(width));
    }
    for (double v : feature_rows[i]) features.push_back(static_cast<float>(v));
  }
  std::vector<int32_t> labels;
  for (std::size_t i = 0; i < label_rows.size(); ++i) {
    labels.push_back(node_id(label_rows[i].at(0), nodes, labels_file, i));  // a class id, checked as an index
    dataset.num_classes = std::max<int64_t>(dataset.num_classes, labels.back() + 1);
  }
  std::vector<int32_t> sources, targets;
  for (std::size_t i = 0; i < edge_rows.size(); ++i) {
    if (edge_rows[i].size() != 2) throw IoError(edges_file, static_cast<int64_t>(i + 1), "expected source,target");
    sources.push_back(node_id(edge_rows[i][0], nodes, edges_file, i));
    targets.push_back(node_id(edge_rows[i][1], nodes, edges_file, i));
  }
  const auto edge_count = static_cast<int64_t>(sources.size());
  dataset.edges.num_nodes = nodes;
  dataset.edges.source = Tensor::from_vector(sources, {edge_count});
  dataset.edges.target = Tensor::from_vector(targets, {edge_count});
  dataset.features = Tensor::from_vector(features, {nodes, width});
  dataset.labels = Tensor::from_vector(labels, {nodes});
  return dataset;
}

// A random split of the nodes (fractions of train and validation; the rest is test).
void split_nodes(graph_io::Dataset& dataset, double train, double valid, uint64_t seed) {
  std::vector<int32_t> order(static_cast<std::size_t>(dataset.num_nodes()));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  const auto train_end = static_cast<std::size_t>(train * static_cast<double>(order.size()));
  const auto valid_end = train_end + static_cast<std::size_t>(valid * static_cast<double>(order.size()));
  auto slice = [&](std::size_t begin, std::size_t end) {
    std::vector<int32_t> ids(order.begin() + static_cast<std::ptrdiff_t>(begin),
                             order.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(ids.begin(), ids.end());
    return Tensor::from_vector(ids, {static_cast<int64_t>(ids.size())});
  };
  dataset.train_index = slice(0, train_end);
  dataset.valid_index = slice(train_end, valid_end);
  dataset.test_index = slice(valid_end, order.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train GCN on your own graph: an edge list, a feature CSV and a label CSV", "custom_dataset"};
  std::string edges, features, labels, device_name = "cpu";
  double train = 0.6, valid = 0.2;
  int64_t epochs = 200;
  uint64_t seed = 0;
  app.add_option("--edges", edges, "edge list CSV: source,target per line (0-based node ids)")->required();
  app.add_option("--features", features, "feature CSV: one line of numbers per node")->required();
  app.add_option("--labels", labels, "label CSV: one 0-based class per line")->required();
  app.add_option("--train", train, "fraction of nodes for training (default 0.6)");
  app.add_option("--valid", valid, "fraction of nodes for validation (default 0.2)");
  app.add_option("--epochs", epochs, "training epochs (default 200)");
  app.add_option("--seed", seed, "seed of the split, the weights and dropout (default 0)");
  app.add_option("--device", device_name, "cpu, cuda or cuda:<k> (default cpu)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  try {
    SGNN_CHECK(train > 0 && valid > 0 && train + valid < 1.0,
               "--train and --valid must be positive fractions that leave nodes for the test split, got ", train,
               " and ", valid);
    SGNN_CHECK(epochs >= 1, "--epochs must be at least 1, got ", epochs);
    const Device device = Device::parse(device_name);
    require_available(device);

    // 1. Read the files into a Dataset and split the nodes.
    graph_io::Dataset dataset = read_dataset(edges, features, labels);
    split_nodes(dataset, train, valid, seed);
    // 2. Prepare the graph once: symmetric, self loops, GCN normalisation, on the device.
    const graph_io::Graph graph = graph_io::make_graph(dataset, graph_io::gcn_graph_options(), device);
    // 3. Build the model and its optimizer (weight decay on the first layer only, as Kipf & Welling).
    Generator generator(seed);
    const auto model = training::make_model(
        {.kind = "gcn", .in_features = dataset.features.size(1), .classes = graph.num_classes}, generator);
    model->to(device);
    training::Adam optimizer(model->parameter_groups(5e-4f), ops::AdamHyperparameters{0.01f});
    // 4. Train, keeping the parameters of the best validation epoch.
    training::TrainingData data;
    data.graph = training::GraphInput(graph);
    data.features = graph_io::normalize_feature_rows(graph.features);
    data.labels = graph.labels;
    data.train_index = graph.train_index;
    data.valid_index = graph.valid_index;
    data.test_index = graph.test_index;
    training::TrainerOptions options;
    options.epochs = epochs;
    training::Trainer trainer(*model, optimizer, data, options);
    const training::TrainResult result = trainer.fit();
    std::printf("%lld nodes, %lld classes: test accuracy %.2f%% at epoch %lld (validation %.2f%%), %.3f ms per epoch\n",
                static_cast<long long>(graph.num_nodes), static_cast<long long>(graph.num_classes),
                100.0 * result.best.test.accuracy, static_cast<long long>(result.best_epoch),
                100.0 * result.best.validation.accuracy, result.epoch_ms_median);
    return 0;
  } catch (const Error& error) {
    std::fprintf(stderr, "custom_dataset: error: %s\n", error.what());
    return 1;
  }
}
