// Bipartite graphs and their rectangular adjacency.
//
// EdgeList (and prepare_adjacency) describe square matrices: one node set. A
// bipartite graph is therefore generated as a square graph on S + T nodes
// whose edges all go from a source node (ids [0, S)) to a target node (ids
// [S, S + T)); prepare_bipartite_adjacency then cuts out the block that holds
// every entry, the T × S matrix A[target − S, source] (Csr and the ops take
// any num_rows × num_cols). Think of users (sources) and items (targets):
// sources pick targets in proportion to power-law popularity weights
// (graph_io/generators/power_law_weights.hpp, ranks shuffled over the target ids), so
// A has heavy-tailed rows and uniformly spread columns.
#pragma once

#include <cstdint>

#include "core/adjacency.hpp"
#include "graph_io/edge_list.hpp"
#include "graph_io/prepare.hpp"

namespace sgnn::graph_io {

struct BipartiteOptions {
  int64_t num_sources = 1000;  // columns of A
  int64_t num_targets = 100;   // rows of A
  int64_t num_edges = 10000;   // drawn; repeats occur
  double exponent = 2.5;       // γ > 2 of the targets' power-law degrees
  uint64_t seed = 0;
};

// Square edge list on num_sources + num_targets nodes, every edge source ->
// target. Deterministic from the seed, whatever the thread count. Throws
// InvalidArgument on bad options (num_edges above num_sources · num_targets,
// too many nodes, exponent <= 2).
EdgeList generate_bipartite(const BipartiteOptions& options);

// The num_targets × num_sources adjacency of `edges` (every edge from a node
// in [0, num_sources) to one in [num_sources, edges.num_nodes)), prepared as
// prepare_adjacency would (duplicates merged, normalisation, transpose,
// row orders) on options.device. A rectangular matrix has no diagonal and no
// reverse edges: options.symmetrize and SelfLoops::Add are refused, and so is
// Normalization::Symmetric (the sources' rows are empty). Throws
// InvalidArgument naming the first edge that is not source -> target.
Adjacency prepare_bipartite_adjacency(const EdgeList& edges, int64_t num_sources, const PrepareOptions& options);

}  // namespace sgnn::graph_io
