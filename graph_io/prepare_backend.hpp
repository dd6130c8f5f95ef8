// The device half of prepare_adjacency (graph_io/cuda/prepare_device.cu): the
// csr_builder with Thrust's CUDA policy on the library's stream of
// options.device, temporaries from the library's memory pool. `edges` must be
// on options.device with shapes and dtypes already checked.
#pragma once

#include "graph_io/prepare.hpp"

namespace sgnn::graph_io {

#ifdef SGNN_WITH_CUDA
Adjacency prepare_adjacency_cuda(const EdgeList& edges, const PrepareOptions& options);
#endif

}  // namespace sgnn::graph_io
