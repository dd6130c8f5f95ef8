// Stochastic block model graphs: community structure. Each node falls in a
// uniform random block; an edge starts at a uniform node and ends in the same
// block with probability `homophily`, else at a uniform node. Block sizes are
// therefore random (multinomial). Deterministic from the seed, whatever the
// thread count.
//
// Node order: by default a node's block is independent of its id (the
// communities are scattered over the id range, as in a graph whose ids carry
// no meaning); contiguous_blocks renumbers the nodes block by block (block 0
// first, ids within a block in their shuffled order's rank), the order a
// perfect community-aware reordering would produce.
#pragma once

#include <cstdint>
#include <vector>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

struct SbmOptions {
  int64_t num_nodes = 1000;
  int64_t num_blocks = 4;
  int64_t num_edges = 10000;  // drawn; repeats and self loops occur
  double homophily = 0.8;     // share of edges drawn inside the source's block
  bool contiguous_blocks = false;
  uint64_t seed = 0;
};

struct SbmGraph {
  EdgeList edges;               // host, num_edges edges, each in one direction
  std::vector<int32_t> blocks;  // [num_nodes]: the block of each node
};

// Throws InvalidArgument on bad options (sizes out of range, num_blocks not
// in [1, num_nodes], homophily outside [0, 1]).
SbmGraph generate_sbm(const SbmOptions& options);

}  // namespace sgnn::graph_io
