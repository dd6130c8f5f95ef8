// Backend entry points of ops/gatv2_attention.hpp (see ops/backend.hpp).
// Every tensor contiguous and on csr's device; arithmetic in float.
#pragma once

#include "core/csr.hpp"
#include "ops/backend.hpp"

namespace sgnn::ops {

// scores[e, h] = Σ_f a[h, f] · LeakyReLU(rows[row(e), h, f] + columns[col(e), h, f]).
//   rows [num_rows, H, F], columns [num_cols, H, F] float32 or bfloat16 (one
//   dtype), a [H, F] float32, scores [nnz, H] float32.
void gatv2_scores_forward(Cpu, const Csr& csr, const Tensor& rows, const Tensor& columns, const Tensor& a,
                          float negative_slope, Tensor& scores);
void gatv2_scores_forward(Cuda, const Csr& csr, const Tensor& rows, const Tensor& columns, const Tensor& a,
                          float negative_slope, Tensor& scores);

// The gradients of the scores' row operand and of a, given grad_scores:
//   grad_rows[v, h, f] += Σ_{e in row v} g[e, h] · a[h, f] · LeakyReLU'(z)
//   grad_a[h, f]       += Σ_e g[e, h] · LeakyReLU(z),  z = rows[v, h, f] + columns[col(e), h, f]
// with g[e, h] = grad_scores[edge_map[e], h] when edge_map (int32 [nnz]) is
// defined (the same pass on Aᵀ gives the column operand's gradient), else
// grad_scores[e, h]. grad_rows [num_rows, H, F] and grad_a [H, F] float32,
// zeroed by the caller; grad_a may be undefined (not wanted).
void gatv2_scores_backward(Cpu, const Csr& csr, const Tensor& edge_map, const Tensor& grad_scores, const Tensor& rows,
                           const Tensor& columns, const Tensor& a, float negative_slope, Tensor& grad_rows,
                           Tensor& grad_a);
void gatv2_scores_backward(Cuda, const Csr& csr, const Tensor& edge_map, const Tensor& grad_scores, const Tensor& rows,
                           const Tensor& columns, const Tensor& a, float negative_slope, Tensor& grad_rows,
                           Tensor& grad_a);

}  // namespace sgnn::ops
