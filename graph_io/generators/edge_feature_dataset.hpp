// A node-classification dataset whose labels are a function of its edge
// features alone, for models that read them (GINE): deterministic from a
// seed (Philox streams, any thread count).
//
//   graph     each node draws `partners` uniform other nodes; the pairs,
//             repeats removed, are undirected edges listed once (lower id
//             first), so every node has at least `partners` incident edges
//   edges     edge_features per edge, N(0, 1) each: Dataset::edge_features
//   labels    node v's class = argmax over c < num_classes of the sum of
//             column c over v's incident edges (ties: the lowest class)
//   features  num_features per node, N(0, 1), drawn independently of
//             everything else: they carry no class signal, and neither does
//             the graph's structure (uniform partners)
//   splits    random, as the other generated datasets' (random_splits)
// A model that ignores the edge features is at chance (1 / num_classes,
// up to the class sizes); one that sums its in-edges' features can reach
// every label once the graph is symmetrised (each node's incident edges
// are then its in-edges).
#pragma once

#include <cstdint>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

struct EdgeFeatureOptions {
  int64_t num_nodes = 2000;
  int64_t partners = 4;       // edges drawn from each node (before repeats are removed)
  int64_t num_features = 16;  // node features (noise)
  int64_t edge_features = 8;  // >= num_classes
  int64_t num_classes = 4;
  double train_fraction = 0.6;
  double valid_fraction = 0.2;  // the rest is the test split
  uint64_t seed = 0;
};

// Throws InvalidArgument on bad options (fewer than 2 nodes, non-positive
// sizes, fewer edge features than classes, fractions outside [0, 1]).
Dataset generate_edge_feature_dataset(const EdgeFeatureOptions& options);

}  // namespace sgnn::graph_io
