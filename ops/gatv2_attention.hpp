// GATv2's attention (Brody et al. 2022) without an [nnz, H, F] tensor:
//
//   gatv2_scores(A, x_target, x_source, a, slope)
//     s[e, h] = Σ_f a[h, f] · LeakyReLU(x_target[row(e), h, f] + x_source[col(e), h, f])
//   gatv2_attention(A, x_target, x_source, a, slope)
//     edge_softmax(A, gatv2_scores(...)): each row's entries' coefficients
//
//   x_target [n_rows, H, F] (W_r x of the destinations), x_source
//   [n_cols, H, F] (W_l x of the sources), float32 or bfloat16, one dtype;
//   a [H, F] float32 (the attention vector, a float32 master in a bf16 model)
//   -> s [nnz, H] float32 (scores feed the softmax, as sddmm_dot's do).
//   Products and sums in float. Differentiable in x_target, x_source and a:
//   the backward recomputes x_target + x_source per entry in registers, sums
//   the rows' gradients over A and the columns' over Aᵀ (through
//   transpose_to_csr), and a's over every entry (float atomics: the order of
//   those sums varies run to run).
//
// Peak memory: s, [nnz, H] float32, is the only per-entry tensor of
// gatv2_scores (PyG's GATv2Conv forms x_i + x_j, [nnz, H, F], in forward
// and again in backward); gatv2_attention keeps only the coefficients
// [nnz, H] for backward (edge_softmax's output), s lives until the softmax.
// Bad shapes, dtypes, devices or slope < 0 -> InvalidArgument.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor gatv2_scores(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                    float negative_slope);
Tensor gatv2_attention(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                       float negative_slope);

}  // namespace sgnn::ops
