// Dataset: a graph as read from files, on the host, before any preparation.
//
//   edges        EdgeList (host): num_nodes, source/target int32 [E], optional
//                weight float32 [E]; directed as stored (an undirected file
//                lists both directions or is symmetrised by prepare())
//   features     host [N, F] float32, finite (undefined if the files have none)
//   labels       host [N] int32 in [0, num_classes) (undefined if none)
//   train_index, valid_index, test_index
//                host [M] int32 node ids in [0, N), no repeats, disjoint
//                (undefined if the files have no split)
//   num_classes  max label + 1 (0 without labels)
//   read_ms      wall time the reader took (make_graph reports it)
#pragma once

#include <cstdint>
#include <string>

#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

struct Dataset {
  std::string name;    // e.g. "cora" (the folder or file name)
  std::string source;  // where it was read from
  EdgeList edges;
  Tensor features;
  Tensor labels;
  Tensor train_index;
  Tensor valid_index;
  Tensor test_index;
  int64_t num_classes = 0;
  double read_ms = 0.0;

  int64_t num_nodes() const { return edges.num_nodes; }
};

}  // namespace sgnn::graph_io
