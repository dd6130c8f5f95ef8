// Softmax over the entries of each row of an Adjacency (GAT attention):
//   out[e, h] = exp(s[e, h] − max_row) / Σ_{e' in row(e)} exp(s[e', h] − max_row)
// scores [nnz], [nnz, H] or [nnz, H, 1] (DGL's shape) float32 or bfloat16 in
// A's edge order, on A's device -> same shape and dtype. Any per-edge
// scores: a g-SDDMM's, or ones computed from gather_rows and elementwise ops
// (ops/gather_scatter.hpp, ops/edge_endpoints.hpp). Computed in float whatever the dtype (the
// maximum, the sum of exponentials and the division; the backward's row sum
// Σ out·grad_out), the output and the gradient rounded once to bfloat16 when
// stored as bfloat16. Stable (the row maximum is subtracted); rows without
// entries give nothing and are fine. Differentiable in scores. Bad input ->
// InvalidArgument.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor edge_softmax(const Adjacency& adjacency, const Tensor& scores);

}  // namespace sgnn::ops
