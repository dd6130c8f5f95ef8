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
#include <string>
#include <vector>

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

// The same node data (loops and repeats removed, `symmetric` as above,
// planted features, random splits) around a graph of another family
// (graph_io/generators/generators.hpp): `edges` (any device) with node classes `labels`
// [edges.num_nodes] in [0, num_classes). Uses the options' symmetric,
// num_features, num_classes, fractions and seed; num_nodes comes from
// `edges`. Throws InvalidArgument on a bad edge list, labels or options.
Dataset synthetic_dataset_from_graph(const EdgeList& edges, std::vector<int32_t> labels,
                                     const SyntheticOptions& options, std::string name);

// Random train/valid/test splits of `options.num_nodes` nodes (fractions
// and seed from `options`), each sorted, into `dataset`: what every
// generated dataset gets.
void random_splits(const SyntheticOptions& options, Dataset& dataset);

// Classes as contiguous ranges of node ids: node v gets v · num_classes /
// num_nodes (class sizes differ by at most one). Classes that follow the
// graph where ids do (grids in natural order); R-MAT's, before its shuffle.
std::vector<int32_t> contiguous_classes(int64_t num_nodes, int64_t num_classes);

}  // namespace sgnn::graph_io
