// The edge list of a prebuilt CSR, for the consumers that read edges (the
// statistics and pictures of sgnn_describe) of a dataset that stores only
// its CSR (the papers100M-scale preset; graph_io/dataset.hpp).
//
//   csr     host CSR: row v lists the in-neighbours of v (int32 or int64
//           indptr, int32 indices)
//   return  EdgeList of csr.nnz edges u -> v in row order, no weights
//           (host; 8 bytes an edge)
// Throws InvalidArgument for a CSR on a device or without its arrays.
#pragma once

#include "core/csr.hpp"
#include "graph_io/edge_list.hpp"

namespace sgnn::graph_io {

EdgeList edges_of_csr(const Csr& csr);

}  // namespace sgnn::graph_io
