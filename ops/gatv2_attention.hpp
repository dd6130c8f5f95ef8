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
//   transpose_to_csr), and a's over every entry (float atomics on CUDA: the
//   order of those sums varies run to run, except under
//   ops::set_deterministic(true), where per-segment partials are added in a
//   fixed order).
//
// Peak memory: s, [nnz, H] float32, is the only per-entry tensor of
// gatv2_scores (PyG's GATv2Conv forms x_i + x_j, [nnz, H, F], in forward
// and again in backward); gatv2_attention keeps only the coefficients
// [nnz, H] for backward (edge_softmax's output), s lives until the softmax.
// Bad shapes, dtypes, devices or slope < 0 -> InvalidArgument.
#pragma once

#include "core/adjacency.hpp"
#include "core/generator.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor gatv2_scores(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                    float negative_slope);
Tensor gatv2_attention(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                       float negative_slope);

// GATv2's attention and aggregation as one op (Brody et al. 2022):
//
//   gatv2_aggregate(A, x_target, x_source, a, slope, dropout, training, generator)
//     α[e, h]      = edge_softmax over row(e) of gatv2_scores(A, x_target, x_source, a, slope)
//     α̃            = ops::dropout(α, dropout, training, generator)
//     out[v, h, :] = Σ_{e in row v} α̃[e, h] · x_source[col(e), h, :]
//   what spmm(A, dropout(gatv2_attention(...)), x_source) computes: the same
//   values (float arithmetic, sums in CSR order) and the same generator draw
//   (one stream of nnz · H values, drawn only when training with dropout > 0).
//   x_target [n_rows, H, F], x_source [n_cols, H, F], float32 or bfloat16 (one
//   dtype), a [H, F] float32 -> out [n_rows, H, F] in x's dtype. A row
//   without entries gives 0. Differentiable in x_target, x_source and a.
//
// Paths that compute it: the three ops above and their kernels, or fused
// kernels (the CPU; CUDA where an entry's heads fit one warp's lanes, H times
// the lanes a head's F features need at most 32 — 8 heads of 8, one of 41,
// two of 64 in float32 — in one or two layouts: ops/gatv2_backend.hpp). On
// CUDA the first call of a shape on a graph times each (forward and backward
// when it records gradients) and keeps the fastest in the graph's measured
// choices (ops/kernel_choices.hpp; the default fused layout where nothing
// may be timed): the fused kernels win on long rows, the composition's
// short-row tiles or the wider fused layout on rows of a few entries. Under
// ops::set_deterministic(true) CUDA takes the composition, whose backward
// adds in a fixed order (the fused backward adds with atomics). Fused:
// forward, one pass per row: the scores, the softmax (on CUDA online:
// FlashAttention's running maximum), the dropout mask by its draw, the sum.
// Kept for backward: the scores [nnz, H] float32 and each row's log-sum-exp
// [n_rows, H] float32. Backward: with D[v, h] = Σ_f grad_out[v, h, f] ·
// out[v, h, f] (= Σ_e α[e, h] · ∂L/∂α[e, h]), the scores' gradient α · (∂L/∂α
// − D) comes out of the one row pass that reads x_source[col], with
// x_target's and a's gradients; x_source's gradient is a pass over Aᵀ
// (through transpose_to_csr) that reads the scores' gradient [nnz, H] float32
// (on CUDA beside α̃, and with the sign of x_target[row] + x_source[col] per
// (entry, head, feature) kept by the row pass: H·F bits an entry, each lane's
// rounded up to 1, 2, 4 or 8 and the entry's to whole bytes, at most 32), so
// it gathers only grad_out[row]. Peak memory beyond the inputs and output:
// forward 4·nnz·H bytes; backward, CPU 8·nnz·H bytes, CUDA 12·nnz·H bytes,
// the signs (about nnz·H·F / 8 bytes; 8·nnz at 8 heads of 8 or one of 41)
// and, with dropout, nnz·H / 8 bytes of mask bits.
// Bad shapes, dtypes, devices, slope < 0 or dropout outside [0, 1) ->
// InvalidArgument.
Tensor gatv2_aggregate(const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                       float negative_slope, float dropout, bool training, Generator& generator);

}  // namespace sgnn::ops
