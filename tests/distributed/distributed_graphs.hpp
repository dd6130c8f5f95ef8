// Graphs and tasks for the distributed tests: GCN-normalised random graphs
// (self loops, symmetric), block-diagonal graphs without edges between the
// blocks, and a random node-classification task on them.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/adjacency.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/prepare.hpp"
#include "tests/support/testing.hpp"

namespace sgnn::testing {

inline Adjacency prepared_gcn_graph(int64_t nodes, const std::vector<int32_t>& source, const std::vector<int32_t>& target,
                                    Device device = Device::cpu()) {
  graph_io::EdgeList edges;
  edges.num_nodes = nodes;
  edges.source = Tensor::from_vector(source, {static_cast<int64_t>(source.size())});
  edges.target = Tensor::from_vector(target, {static_cast<int64_t>(target.size())});
  graph_io::PrepareOptions options = graph_io::gcn_graph_options().prepare;
  options.edge_map = true;  // GAT trains on this graph too
  options.device = device;
  return graph_io::prepare_adjacency(edges, options);
}

// `edges` random edges among `nodes` nodes, GCN-normalised.
inline Adjacency random_gcn_graph(int64_t nodes, int64_t edges, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int32_t> node(0, static_cast<int32_t>(nodes - 1));
  std::vector<int32_t> source;
  std::vector<int32_t> target;
  for (int64_t k = 0; k < edges; ++k) {
    source.push_back(node(engine));
    target.push_back(node(engine));
  }
  return prepared_gcn_graph(nodes, source, target);
}

// `blocks` blocks of `block_size` nodes; edges only inside a block.
inline Adjacency block_diagonal_graph(int64_t blocks, int64_t block_size, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int32_t> offset(0, static_cast<int32_t>(block_size - 1));
  std::vector<int32_t> source;
  std::vector<int32_t> target;
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t k = 0; k < 3 * block_size; ++k) {
      source.push_back(static_cast<int32_t>(b * block_size + offset(engine)));
      target.push_back(static_cast<int32_t>(b * block_size + offset(engine)));
    }
  }
  return prepared_gcn_graph(blocks * block_size, source, target);
}

struct Task {
  Tensor features, labels, train_index, valid_index, test_index;  // host
  int64_t classes = 0;
};

// Random features and labels; every third node trains, the rest split into
// validation and test.
inline Task random_task(int64_t nodes, int64_t features, int64_t classes, uint64_t seed) {
  Task task;
  task.classes = classes;
  task.features = random_tensor({nodes, features}, seed);
  task.labels = random_indices({nodes}, seed + 1, 0, classes, DType::Int32);
  std::vector<int32_t> train, valid, test;
  for (int32_t row = 0; row < nodes; ++row) {
    (row % 3 == 0 ? train : row % 3 == 1 ? valid : test).push_back(row);
  }
  const auto tensor = [](const std::vector<int32_t>& rows) {
    return Tensor::from_vector(rows, {static_cast<int64_t>(rows.size())});
  };
  task.train_index = tensor(train);
  task.valid_index = tensor(valid);
  task.test_index = tensor(test);
  return task;
}

}  // namespace sgnn::testing
