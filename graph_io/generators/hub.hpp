// One hub among small rows: a uniform random graph (graph_io/generators/uniform_random.hpp)
// on every node but the hub, plus the hub linked to hub_degree distinct other
// nodes chosen uniformly. The hub is node num_nodes / 2 (a middle row, not
// the first or last). Deterministic from the seed, whatever the thread count.
#pragma once

#include <cstdint>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

struct HubOptions {
  int64_t num_nodes = 10000;
  int64_t hub_degree = 1000;  // the hub's distinct neighbours, < num_nodes
  double average_degree = 4;  // of the other nodes among themselves
  uint64_t seed = 0;
};

// Each undirected edge once: the hub's as neighbour -> hub (so the hub's row
// of A = A[target, source] has exactly hub_degree entries even unsymmetrised),
// the others in one direction. Throws InvalidArgument on bad options.
EdgeList generate_hub(const HubOptions& options);

// The hub's id: num_nodes / 2.
int64_t hub_node(const HubOptions& options);

}  // namespace sgnn::graph_io
