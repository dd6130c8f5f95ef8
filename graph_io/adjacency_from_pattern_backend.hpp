// The device half of adjacency_from_pattern (graph_io/cuda/adjacency_from_pattern.cu):
// csr_builder::assemble_pattern with Thrust's CUDA policy on the library's
// stream of options.device. `pattern` and `weights` are on that device,
// already checked.
#pragma once

#include "graph_io/prepare.hpp"

namespace sgnn::graph_io {

#ifdef SGNN_WITH_CUDA
Adjacency adjacency_from_pattern_cuda(const Csr& pattern, const Tensor& weights, const PrepareOptions& options);
// check_sorted_pattern's test on a pattern already on a CUDA device (shapes
// and dtypes checked by the caller): true when offsets run from 0 to nnz
// without decreasing and every row's columns increase and are < num_rows.
bool is_sorted_pattern_cuda(const Csr& pattern);
// csr_builder::scaled_values on a CUDA device (`csr` and `scale` there).
Tensor scaled_values_cuda(const Csr& csr, const double* scale);
#endif

}  // namespace sgnn::graph_io
