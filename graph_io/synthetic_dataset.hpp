// Synthetic node-classification datasets for tests and scaling benchmarks,
// deterministic from a seed (Philox streams: same result at any thread count).
//
//   Sbm   stochastic block model: each node gets a uniform random class; an
//         edge starts at a uniform node and ends in the same class with
//         probability `homophily`, else at a uniform node.
//   Rmat  R-MAT power-law graph (generate_rmat); classes are contiguous ranges
//         of the quadrant structure (before R-MAT's shuffle), so neighbours
//         share classes more often than chance.
// Both: self loops and repeated edges are removed (symmetric: one undirected
// edge {u, v} written as u->v and v->u, so the edge count is at most
// 2·num_edges); features are a class centroid plus N(0, 1) noise per value,
// centroid values uniform in ±sqrt(6/F) (classes overlap in feature space,
// so the graph helps); splits are a random train/valid/test partition.
#pragma once

#include <cstdint>

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

enum class SyntheticKind : unsigned char { Sbm, Rmat };

struct SyntheticOptions {
  SyntheticKind kind = SyntheticKind::Sbm;
  int64_t num_nodes = 1000;
  int64_t num_edges = 10000;  // drawn before removing loops and repeats; per direction when symmetric
  bool symmetric = false;
  int64_t num_features = 32;  // 0: no features
  int64_t num_classes = 4;
  double homophily = 0.8;  // Sbm only
  double train_fraction = 0.6;
  double valid_fraction = 0.2;  // the rest is the test split
  uint64_t seed = 0;
};

// Throws InvalidArgument on bad options (non-positive sizes, fractions outside [0, 1]).
Dataset generate_synthetic_dataset(const SyntheticOptions& options);

}  // namespace sgnn::graph_io
