#include "tests/support/training_task.hpp"

#include <numeric>
#include <random>

#include "graph_io/graph.hpp"
#include "graph_io/prepare.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing {

TinyTask tiny_task(uint64_t seed, Device device) {
  constexpr int64_t kNodes = 90;
  constexpr int64_t kEdges = 300;
  TinyTask task;
  // Homophilous on purpose: node i is in class i % 3, 80% of the edges join
  // nodes of one class, and feature `class` carries a noisy signal.
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int32_t> node(0, kNodes - 1);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::vector<int32_t> sources, targets;
  for (int64_t e = 0; e < kEdges; ++e) {
    const int32_t source = node(engine);
    int32_t target = node(engine);
    if (coin(engine) < 0.8) target = static_cast<int32_t>((target - target % 3 + source % 3) % kNodes);
    sources.push_back(source);
    targets.push_back(target);
  }
  graph_io::EdgeList edges;
  edges.num_nodes = kNodes;
  edges.source = Tensor::from_vector(sources, {kEdges});
  edges.target = Tensor::from_vector(targets, {kEdges});
  graph_io::PrepareOptions options = graph_io::gcn_graph_options().prepare;
  options.device = device;
  options.edge_map = true;  // GAT trains on this graph too
  task.adjacency = std::make_shared<Adjacency>(graph_io::prepare_adjacency(edges, options));

  Tensor features = random_tensor({kNodes, task.features}, seed + 2, 0.0, 1.0);
  std::vector<int32_t> labels(kNodes);
  float* x = features.data<float>();
  for (int64_t i = 0; i < kNodes; ++i) {
    labels[static_cast<std::size_t>(i)] = static_cast<int32_t>(i % 3);
    x[i * task.features + i % 3] += 0.6f;
  }
  auto range = [&](int32_t begin, int32_t end) {
    std::vector<int32_t> ids(static_cast<std::size_t>(end - begin));
    std::iota(ids.begin(), ids.end(), begin);
    return Tensor::from_vector(ids, {end - begin}, device);
  };
  task.data.graph = training::GraphInput(*task.adjacency);
  task.data.features = features.to(device);
  task.data.labels = Tensor::from_vector(labels, {kNodes}, device);
  task.data.train_index = range(0, 40);
  task.data.valid_index = range(40, 60);
  task.data.test_index = range(60, kNodes);
  return task;
}

std::shared_ptr<training::Model> tiny_gcn(const TinyTask& task, Generator& generator) {
  return training::make_model({.kind = "gcn",
                               .in_features = task.features,
                               .classes = task.classes,
                               .hyperparameters = {{"hidden", "8"}, {"dropout", "0.5"}}},
                              generator);
}

std::shared_ptr<training::Model> tiny_gat(const TinyTask& task, Generator& generator) {
  return training::make_model(
      {.kind = "gat",
       .in_features = task.features,
       .classes = task.classes,
       .hyperparameters = {{"hidden", "4"}, {"heads", "3"}, {"output_heads", "2"}, {"projected_dropout", "off"}}},
      generator);
}

}  // namespace sgnn::testing
