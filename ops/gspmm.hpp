// g-SpMM (DGL's generalized SpMM): aggregation of per-edge messages.
//
//   gspmm(A, message, reduce, u, e)
//     out[v] = reduce over the entries k = (u -> v) of row v of message(u[col(k)], e[k])
//     message  CopyU, CopyE, UMulE, UAddE, USubE, UDivE (ops/message_passing.hpp)
//     reduce   Sum, Mean, Max, Min (ops/reduce_kind.hpp); a row without
//              entries gives 0; Max/Min route each output's gradient to the
//              entry that won (the first in CSR order among equal messages;
//              the first NaN message wins, ops/reduce_kind.hpp)
//     u        [n_cols], [n_cols, D] or [n_cols, H, D], float32 or bfloat16;
//              undefined for CopyE
//     e        [nnz], [nnz, D], [nnz, H, 1], [nnz, H, D] (any shape that
//              broadcasts with u's, NumPy rules past the first axis), float32
//              or bfloat16, in A's edge order; undefined for CopyU
//     returns  [n_rows] + the broadcast feature shape, in u's dtype (e's for CopyE)
//   Products, sums and comparisons in float; a bfloat16 result is rounded once.
//   The graph is A's pattern: A's stored weights (values, symmetric_scale)
//   are not read; weights are e (ops::spmm(A, b) aggregates with them).
//   Differentiable in u and e (Sum/Mean: g-SpMM on Aᵀ and g-SDDMM, no
//   atomics; Max/Min: the gradients added at the winners, with atomics on
//   CUDA, or in output order under ops::set_deterministic(true)).
//
// Which kernel runs is decided here, once per call:
//   - Sum or Mean of CopyU, or of UMulE with one weight per edge ([nnz],
//     [nnz, 1]) or per head ([nnz, H, 1] beside u [n, H, D]): the tuned SpMM
//     (ops/spmm.hpp: the measured tile and padded choices; Mean divides each
//     row's sum by its entry count inside the kernel);
//   - CopyE: the segment reduction of e over A's rows (ops/gather_scatter.hpp);
//   - Max or Min of those same forms: the tuned SpMM's light tile with a
//     maximum for the sum, values only (the backward finds the winners again
//     with the generalized kernel: one more pass over the entries, in backward);
//   - everything else: the generalized kernel (ops/gspmm_backend.hpp) over
//     the graph's balanced work segments (ops/sparse_plan.hpp).
// Peak memory: the output; for Max/Min outside the tuned forms also an int32
// argument of the output's shape kept for backward. No [nnz, H, D] tensor is
// formed in forward.
// Backward forms one [nnz, H, D] tensor only for the gradient of an e of that shape.
//
// Every tensor on A's device; a missing or extra operand, bad shapes, dtypes
// or devices -> InvalidArgument naming gspmm, the argument and the shapes.
// Max/Min need nnz < 2^31 (the argument is int32).
#pragma once

#include <string_view>

#include "core/adjacency.hpp"
#include "core/tensor.hpp"
#include "ops/message_passing.hpp"
#include "ops/reduce_kind.hpp"

namespace sgnn::ops {

Tensor gspmm(const Adjacency& adjacency, MessageKind message, ReduceKind reduce, const Tensor& u, const Tensor& e);
// DGL's names: gspmm(A, "u_mul_e", "sum", x, w).
Tensor gspmm(const Adjacency& adjacency, std::string_view message, std::string_view reduce, const Tensor& u,
             const Tensor& e);

// The common forms: copy_u aggregation (PyG's aggr) and weighted aggregation.
inline Tensor aggregate(const Adjacency& adjacency, const Tensor& x, ReduceKind reduce) {
  return gspmm(adjacency, MessageKind::CopyU, reduce, x, Tensor());
}

}  // namespace sgnn::ops
