// Synthetic graphs for tests and scaling benchmarks, deterministic from a
// seed (Philox streams: the same graph whatever the thread count).
#pragma once

#include <cstdint>
#include <vector>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

// R-MAT / Kronecker power-law graph (Chakrabarti et al. 2004): each edge
// picks one quadrant per level with probabilities a, b, c, 1 − a − b − c.
// Node ids are drawn in [0, 2^ceil(log2 num_nodes)), folded into
// [0, num_nodes) and shuffled by a random permutation, so high-degree nodes
// are not clustered at small ids. Edges may repeat and include self loops.
struct RmatOptions {
  int64_t num_nodes = 1024;
  int64_t num_edges = 16384;
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;
  uint64_t seed = 0;
};

// Host edge list of options.num_edges edges. Throws InvalidArgument on bad options.
EdgeList generate_rmat(const RmatOptions& options);

// The relabelling generate_rmat applies: node p of the recursive quadrant
// structure (after folding) becomes node permutation[p]. Nodes with nearby p
// share quadrants, i.e. communities (used to plant labels).
std::vector<int32_t> rmat_node_permutation(const RmatOptions& options);

}  // namespace sgnn::graph_io
