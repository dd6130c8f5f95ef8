// Statistics of a graph for `sgnn_describe` and for choosing options
// (host computation; Boost.Graph for the components).
#pragma once

#include <cstdint>
#include <string>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

struct DegreeStatistics {
  int64_t min = 0, max = 0;
  double mean = 0, median = 0;
  int64_t zero = 0;  // nodes of degree 0
};

struct GraphStatistics {
  int64_t num_nodes = 0;
  int64_t num_edges = 0;        // as stored
  int64_t self_loops = 0;
  int64_t repeated_edges = 0;   // edges equal to an earlier (source, target)
  bool symmetric = false;       // every (u, v) has a (v, u)
  DegreeStatistics in_degree, out_degree;  // over stored edges
  int64_t components = 0;                  // weakly connected
  int64_t largest_component = 0;           // nodes in the largest one
};

GraphStatistics describe_graph(const EdgeList& edges);

// Several lines of "name: value" text.
std::string format_statistics(const GraphStatistics& statistics);

}  // namespace sgnn::graph_io
