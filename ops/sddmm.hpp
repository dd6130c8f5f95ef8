// Sampled dense–dense products: one value per entry of an Adjacency's pattern
// (attention scores, edge gradients). Outputs are in A's edge order.
//
//   sddmm_dot(A, x, y)  out[e] = <x[row(e)], y[col(e)]>
//     x [n_rows, F] and y [n_cols, F] -> [nnz]
//     x [n_rows, H, F] and y [n_cols, H, F] -> [nnz, H] (one dot product per head)
//   sddmm_add(A, x, y)  out[e, h] = x[row(e), h] + y[col(e), h]  (GAT's u_add_v)
//     x [n_rows, H], y [n_cols, H] -> [nnz, H]
//
// x and y both float32 or both bfloat16; the output is float32 either way:
// products and sums in float (a product of two bfloat16 is exact in float),
// never rounded to bfloat16, since scores feed edge_softmax, which computes
// in float, and edge values of ops::spmm stay float32 (docs/mixed_precision.md).
// Every tensor on A's device, differentiable in x and y (backward is SpMM on
// A and on Aᵀ, no atomics; the gradients have x's and y's dtype, computed in
// float and rounded once). Bad shapes, dtypes, devices -> InvalidArgument.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor sddmm_dot(const Adjacency& adjacency, const Tensor& x, const Tensor& y);
Tensor sddmm_add(const Adjacency& adjacency, const Tensor& x, const Tensor& y);

}  // namespace sgnn::ops
