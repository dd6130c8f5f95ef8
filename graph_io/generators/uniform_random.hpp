// Uniform random graphs G(n, m) (Erdős–Rényi): m = round(n · d / 2) edges,
// each between two distinct nodes drawn uniformly. With d = 2 most rows are
// nearly empty: the very sparse end of the range. Deterministic from the
// seed, whatever the thread count.
#pragma once

#include <cstdint>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

struct UniformRandomOptions {
  int64_t num_nodes = 1000;
  double average_degree = 2;  // edge ends per node (an undirected edge counts at both ends)
  uint64_t seed = 0;
};

// Each undirected edge once, in one direction; no self loops, repeats occur
// (rarely: about m² / n² of them). Throws InvalidArgument on bad options
// (fewer than 2 nodes, a negative or non-finite degree).
EdgeList generate_uniform_random(const UniformRandomOptions& options);

}  // namespace sgnn::graph_io
