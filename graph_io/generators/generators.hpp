// Synthetic graphs for tests and benchmarks, deterministic from a seed
// (Philox streams: the same graph whatever the thread count). One header per
// family, all included here:
//
//   R-MAT           power-law graph from recursive quadrants (below)
//   Chung-Lu        heavy-tailed degrees with a given exponent (chung_lu.hpp)
//   SBM             communities, shuffled or contiguous (sbm.hpp)
//   stencils, bands 2D/3D finite-difference grids (grid_graphs.hpp)
//   FEM meshes      linear/quadratic elements, 1-3 dofs per node (grid_graphs.hpp)
//   bipartite       rectangular adjacency, sources -> targets (bipartite.hpp)
//   hub             one row of hub_degree entries among small rows (hub.hpp)
//   uniform random  G(n, m), e.g. average degree 2 (uniform_random.hpp)
//
// Undirected families return each edge once, in one direction: symmetrise
// (GCN's preparation does) to use them as undirected graphs.
#pragma once

#include <cstdint>
#include <vector>

#include "graph_io/generators/bipartite.hpp"
#include "graph_io/generators/chung_lu.hpp"
#include "graph_io/edge_list.hpp"
#include "graph_io/generators/grid_graphs.hpp"
#include "graph_io/generators/hub.hpp"
#include "graph_io/generators/sbm.hpp"
#include "graph_io/generators/uniform_random.hpp"

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
