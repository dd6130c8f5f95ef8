// Node reorderings that improve memory locality of SpMM, computed on the host
// with Boost.Graph, and their consistent application to a Dataset.
//
// A node order is a host int32 [N] tensor with node_order[new id] = original
// id (a permutation of [0, N)).
#pragma once

#include "graph_io/dataset.hpp"

namespace sgnn::graph_io {

enum class Reordering : unsigned char {
  None,
  Rcm,     // reverse Cuthill–McKee on the symmetrised graph (bandwidth reduction), per component
  Degree,  // by decreasing total degree (in + out), ties by id
};

// "none", "rcm", "degree" (and back). parse throws InvalidArgument on other text.
Reordering parse_reordering(std::string_view text);
const char* reordering_name(Reordering reordering);

// The node order for `reordering` (an identity order for None). Edges are read
// as undirected; self loops and duplicates are ignored.
Tensor compute_node_order(const EdgeList& edges, Reordering reordering);

// The dataset with node ids renamed: node node_order[i] becomes node i in
// edges (edge order kept), features and labels (rows moved), and the split
// indices (ids renamed, order kept). Throws InvalidArgument when node_order is
// not a permutation of [0, N).
Dataset reorder_dataset(const Dataset& dataset, const Tensor& node_order);

// The inverse permutation: inverse[node_order[i]] = i.
std::vector<int32_t> invert_node_order(const Tensor& node_order, int64_t num_nodes);

}  // namespace sgnn::graph_io
