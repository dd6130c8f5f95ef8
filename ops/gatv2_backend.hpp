// Backend entry points of ops/gatv2_attention.hpp (see ops/backend.hpp).
// Every tensor contiguous and on csr's device; arithmetic in float.
#pragma once

#include <optional>
#include <vector>

#include "core/adjacency.hpp"
#include "core/csr.hpp"
#include "core/generator.hpp"
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
// zeroed by the caller; grad_a may be undefined (not wanted). CUDA adds a's
// sums and split rows' gradients with atomics, or, under
// ops::set_deterministic(true), through per-segment partials that
// fixed-order kernels add (ops/cuda/gatv2.cu): the same bits every run.
void gatv2_scores_backward(Cpu, const Csr& csr, const Tensor& edge_map, const Tensor& grad_scores, const Tensor& rows,
                           const Tensor& columns, const Tensor& a, float negative_slope, Tensor& grad_rows,
                           Tensor& grad_a);
void gatv2_scores_backward(Cuda, const Csr& csr, const Tensor& edge_map, const Tensor& grad_scores, const Tensor& rows,
                           const Tensor& columns, const Tensor& a, float negative_slope, Tensor& grad_rows,
                           Tensor& grad_a);

// gatv2_aggregate. The entries' dropout: kept iff draw.uniform16(e · H + h)
// >= p, then scaled by 1 / (1 - p) (ops/dropout.hpp's mask); nullopt: every
// entry kept, unscaled.
struct EntryDropout {
  float p = 0.0f;
  RandomDraw draw;
};

// The layouts the backend's fused kernels have for x [n, H, F] of this
// shape and dtype, as lanes per head: the CPU one ({1}); CUDA, where an
// entry's heads fit one warp's lanes, Aᵀ's edge map is int32 and nnz is
// below 2^31 - 1024 (positions count in 32 bits there), the fewest
// lanes that keep a lane's values at most 8 (more entries share a warp
// instruction), then twice as many where the heads still fit a warp (fewer
// values a lane: more warps resident, fewer idle lanes on short rows).
// Empty: no fused kernels; gatv2_aggregate composes the ops above.
std::vector<int> gatv2_fused_layouts(Cpu, const Tensor& x_target, const Tensor& x_source, const Adjacency& adjacency);
std::vector<int> gatv2_fused_layouts(Cuda, const Tensor& x_target, const Tensor& x_source, const Adjacency& adjacency);

// scores [nnz, H] float32: the scores before the softmax; row_lse [n_rows, H]
// float32: each row's log Σ exp(score) (so α = exp(score − row_lse); any
// value for a row without entries); out [n_rows, H, F] in x's dtype.
// lanes_per_head: one of gatv2_fused_layouts, the same in the backward.
void gatv2_aggregate_forward(Cpu, const Csr& csr, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                             float negative_slope, const std::optional<EntryDropout>& dropout, int lanes_per_head,
                             Tensor& scores, Tensor& row_lse, Tensor& out);
void gatv2_aggregate_forward(Cuda, const Csr& csr, const Tensor& x_target, const Tensor& x_source, const Tensor& a,
                             float negative_slope, const std::optional<EntryDropout>& dropout, int lanes_per_head,
                             Tensor& scores, Tensor& row_lse, Tensor& out);

// grad_out and out [n_rows, H, F] float32 (out: the forward's, widened);
// grad_x_target [n_rows, H, F], grad_x_source [n_cols, H, F] and grad_a
// [H, F] float32, filled (not added to). adjacency has its transpose.
void gatv2_aggregate_backward(Cpu, const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source,
                              const Tensor& a, float negative_slope, const std::optional<EntryDropout>& dropout,
                              int lanes_per_head, const Tensor& scores, const Tensor& row_lse, const Tensor& out,
                              const Tensor& grad_out, Tensor& grad_x_target, Tensor& grad_x_source, Tensor& grad_a);
void gatv2_aggregate_backward(Cuda, const Adjacency& adjacency, const Tensor& x_target, const Tensor& x_source,
                              const Tensor& a, float negative_slope, const std::optional<EntryDropout>& dropout,
                              int lanes_per_head, const Tensor& scores, const Tensor& row_lse, const Tensor& out,
                              const Tensor& grad_out, Tensor& grad_x_target, Tensor& grad_x_source, Tensor& grad_a);

}  // namespace sgnn::ops
