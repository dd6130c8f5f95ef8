// The device half of adjacency_from_pattern (graph_io/cuda/adjacency_from_pattern.cu):
// csr_builder::assemble_pattern with Thrust's CUDA policy on the library's
// stream of options.device. `pattern` and `weights` are on that device,
// already checked.
#pragma once

#include "graph_io/prepare.hpp"

namespace sgnn::graph_io {

#ifdef SGNN_WITH_CUDA
Adjacency adjacency_from_pattern_cuda(const Csr& pattern, const Tensor& weights, const PrepareOptions& options);
#endif

}  // namespace sgnn::graph_io
