// Chung-Lu heavy-tailed graphs (Chung & Lu 2002): node i has the expected
// degree w_i of a power law with exponent γ (graph_io/generators/power_law_weights.hpp),
// and each of the round(n · d / 2) edges picks both ends independently in
// proportion to w, so node i's expected number of edge ends is w_i. Ids are
// shuffled (graph_io/random_permutation.hpp): the hubs are spread over the id
// range. Deterministic from the seed, whatever the thread count.
#pragma once

#include <cstdint>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

struct ChungLuOptions {
  int64_t num_nodes = 1000;
  double average_degree = 10;  // edge ends per node (an undirected edge counts at both ends)
  double exponent = 2.5;       // γ > 2 of P(degree = k) ∝ k^-γ; smaller: heavier tail
  double max_degree = 0;       // cap on any node's expected degree (0: none)
  uint64_t seed = 0;
};

// Each undirected edge once, in one direction (symmetrise to use it as an
// undirected graph). Repeats and self loops occur (more often between hubs:
// the realised number of distinct neighbours of a hub is below its w_i).
// Throws InvalidArgument on bad options.
EdgeList generate_chung_lu(const ChungLuOptions& options);

}  // namespace sgnn::graph_io
