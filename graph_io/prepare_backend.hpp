// The device half of prepare_adjacency (graph_io/cuda/prepare_device.cu): the
// csr_builder with Thrust's CUDA policy on the library's stream of
// options.device, temporaries from the library's memory pool. `edges` must be
// on options.device with shapes and dtypes already checked.
#pragma once

#include "graph_io/prepare.hpp"

namespace sgnn::graph_io {

#ifdef SGNN_WITH_CUDA
Adjacency prepare_adjacency_cuda(const EdgeList& edges, const PrepareOptions& options, Tensor* entry_edges);
// edge_features_in_entry_order on entry_edges' CUDA device (features there too, checked).
Tensor entry_features_cuda(const Tensor& features, const Tensor& entry_edges);
#endif

}  // namespace sgnn::graph_io
