// Operands shared by the CUDA benchmarks: uniform random matrices, R-MAT edge
// lists, the adjacency GCN trains on (symmetrised, one self loop per node,
// D^-1/2 A D^-1/2) prepared on a device, and the datasets that can be found.
#pragma once

#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "core/adjacency.hpp"
#include "graph_io/generators/generators.hpp"
#include "graph_io/graph.hpp"
#include "graph_io/load_dataset.hpp"
#include "graph_io/prepare.hpp"

namespace sgnn::bench {

// float32 uniform in [-1, 1) from `seed`, on `device`.
inline Tensor random_matrix(const Shape& shape, uint64_t seed, Device device) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(static_cast<std::size_t>(shape_numel(shape)));
  for (float& v : values) v = uniform(engine);
  return Tensor::from_vector(values, shape, device);
}

// graph_io::generate_rmat with its default skew (host edges).
inline graph_io::EdgeList rmat_edges(int64_t nodes, int64_t edges, uint64_t seed) {
  graph_io::RmatOptions rmat;
  rmat.num_nodes = nodes;
  rmat.num_edges = edges;
  rmat.seed = seed;
  return graph_io::generate_rmat(rmat);
}

// The GCN adjacency of `edges` on `device` (values and transpose values set;
// the map of entries to Aᵀ's order only with `edge_map`, as GCN needs none).
inline Adjacency gcn_adjacency(const graph_io::EdgeList& edges, Device device, bool edge_map = false) {
  graph_io::PrepareOptions options = graph_io::gcn_graph_options().prepare;
  options.device = device;
  options.edge_map = edge_map;
  return graph_io::prepare_adjacency(edges, options);
}

// The datasets of `names` (names or OGB directories, as graph_io::load_dataset
// takes them) that load; each one that does not is reported on stdout as
// "skipping NAME: reason" and left out, so a benchmark runs without them.
inline std::vector<graph_io::Dataset> available_datasets(const std::vector<std::string>& names) {
  std::vector<graph_io::Dataset> found;
  for (const std::string& name : names) {
    try {
      found.push_back(graph_io::load_dataset(name));
    } catch (const IoError& error) {
      std::cout << "skipping " << name << ": " << error.what() << "\n";
    }
  }
  return found;
}

}  // namespace sgnn::bench
