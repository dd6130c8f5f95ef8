// How a Graph is prepared from a Dataset (make_graph, graph_io/graph.hpp):
// the adjacency's preparation and the node reordering, and the settings of
// GCN and GAT. Also what keys the adjacency cache (graph_io/adjacency_cache.hpp).
#pragma once

#include "graph_io/prepare.hpp"
#include "graph_io/reordering.hpp"

namespace sgnn::graph_io {

struct GraphOptions {
  PrepareOptions prepare;
  Reordering reordering = Reordering::None;
  // Carry the dataset's edge features (when it has them) into
  // Graph::edge_features, in the prepared adjacency's entry order (the rule
  // of prepare_adjacency's entry_edges). Off: they stay on the host, unread.
  bool edge_features = false;
};

GraphOptions gcn_graph_options();  // symmetrize, self loops Add, Normalization::Symmetric
GraphOptions gat_graph_options();  // symmetrize, self loops Add, Normalization::None

}  // namespace sgnn::graph_io
