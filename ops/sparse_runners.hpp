// Allocate-and-dispatch helpers shared by the forward and backward passes of
// the sparse ops: no argument checks (the public ops check), no autograd.
#pragma once

#include "core/adjacency.hpp"
#include "core/autograd.hpp"
#include "core/tensor.hpp"
#include "ops/spmm_tile.hpp"

namespace sgnn::ops::detail {

// spmm_forward into a fresh tensor of shape `shape` ([csr.num_rows, ...]) and
// b's dtype, with the call's launch (ops/spmm_choice.hpp), or `launch` where
// the caller chose it; `average`: each row's sum divided by its entry count.
Tensor run_spmm(const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                const Shape& shape, const double* symmetric_scale = nullptr, bool average = false,
                const CsrSpmmLaunch* launch = nullptr);
// sddmm_dot_forward on A (adjacency.csr, with its HRPB layout where it has
// one) with the call's launch (ops/sddmm_choice.hpp) into a fresh tensor of shape `shape` ([nnz] or [nnz, heads]) and `dtype`.
Tensor run_sddmm_dot(const Adjacency& adjacency, int64_t heads, int64_t features, const Tensor& x, const Tensor& y,
                     const Shape& shape, DType dtype = DType::Float32);
// run_spmm on Aᵀ (adjacency.transpose) with `values` in A's edge order: the
// kernel reads them through transpose_to_csr (an int32 map; an int64 one,
// nnz ≥ 2^31, gathers them into Aᵀ's order first). The same weights in the
// same order either way.
Tensor run_spmm_transposed(const Adjacency& adjacency, const Tensor& values, int64_t heads, int64_t features,
                           const Tensor& b, const Shape& shape);
// The gradients of x [n_rows, H] and y [n_cols, H] from grad_sums [nnz, H] (float32 or bfloat16),
// the gradient of x[row(e), h] + y[col(e), h]: its row sums on A and on Aᵀ
// (through transpose_to_csr; ops/edge_sums_backend.hpp), in float, rounded
// once to `dtype`; undefined where `needs` says no.
std::vector<Tensor> edge_sum_gradients(const Adjacency& adjacency, int64_t heads, DType dtype, const Tensor& grad_sums,
                                       const autograd::NeedsGrad& needs);

}  // namespace sgnn::ops::detail
