// Adapter from an EdgeList to Boost.Graph's compressed_sparse_row_graph, for
// the algorithms we borrow from Boost (reverse Cuthill–McKee, components).
#pragma once

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

using BoostCsrGraph = boost::compressed_sparse_row_graph<boost::directedS>;

// The undirected simple graph underneath `edges`: every edge in both
// directions, self loops and repeats dropped (host copy of device edges).
BoostCsrGraph undirected_boost_graph(const EdgeList& edges);

}  // namespace sgnn::graph_io
