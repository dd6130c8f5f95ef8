// Graphs for the sparse-op tests: random, R-MAT, and adversarial shapes
// (empty rows, one hub row), prepared by graph_io::prepare_adjacency, and the
// (row, column) of every entry on the host for float64 references.
#pragma once

#include <cstdint>
#include <vector>

#include "core/adjacency.hpp"

namespace sgnn::testing {

// `nodes` nodes, `edges` random directed edges (duplicates merged), weights
// random in [0.5, 1.5) when `weighted`. Rows without edges occur naturally.
Adjacency random_graph(int64_t nodes, int64_t edges, uint64_t seed, bool weighted = false,
                       Device device = Device::cpu());
// R-MAT power-law graph (graph_io::generate_rmat).
Adjacency rmat_graph(int64_t nodes, int64_t edges, uint64_t seed, Device device = Device::cpu());
// Row `hub` has `hub_edges` entries (columns 0..hub_edges-1), every other row
// at most one; needs nodes ≥ hub_edges.
Adjacency hub_graph(int64_t nodes, int64_t hub_edges, int64_t hub, Device device = Device::cpu());

struct EdgeCoordinates {
  std::vector<int64_t> row;
  std::vector<int64_t> column;
};
// Row and column of every entry of A, in A's edge order.
EdgeCoordinates edge_coordinates(const Adjacency& adjacency);

}  // namespace sgnn::testing
