// GAT's attention coefficients in one op: the softmax over each row's
// entries of LeakyReLU(x[row(e), h] + y[col(e), h]):
//   s[e, h]   = leaky_relu(x[row(e), h] + y[col(e), h], negative_slope)
//   out[e, h] = exp(s[e, h] − max_row) / Σ_{e' in row(e)} exp(s[e', h] − max_row)
// the function edge_softmax(A, leaky_relu(sddmm_add(A, x, y))) computes,
// without storing the scores: the forward writes only out, the backward
// recomputes the scores (a GAT layer's per-edge traffic is most of its step).
// x [n_rows, H] and y [n_cols, H], both float32 or both bfloat16, on A's
// device -> out [nnz, H] in their dtype: a bf16 model keeps its attention in
// bfloat16, half the bytes of every per-edge pass (docs/mixed_precision.md).
// Sums, maxima, exponentials and the division in float, each output rounded
// once. Differentiable in x and y: the scores' gradient (float arithmetic,
// stored in x's dtype), then its row and column sums on A and Aᵀ (no
// atomics; summed in float, rounded once to x's dtype). negative_slope ≥ 0.
// Bad shapes, dtypes, devices or slope -> InvalidArgument.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor attention_softmax(const Adjacency& adjacency, const Tensor& x, const Tensor& y, float negative_slope);

}  // namespace sgnn::ops
