// g-SDDMM (DGL's generalized SDDMM): one value per entry of A from operands
// on its endpoints or on the entry itself.
//
//   gsddmm(A, op, lhs, rhs, lhs_target, rhs_target)
//     out[k] = op(lhs at k, rhs at k) for every entry k = (u -> v) of A, in A's edge order
//     op       Dot, Add, Sub, Mul, Div, CopyLhs, CopyRhs (ops/message_passing.hpp)
//     targets  U: a node tensor [n_cols, ...] read at the source col(k);
//              V: a node tensor [n_rows, ...] read at the destination row(k);
//              E: an edge tensor [nnz, ...] read at k
//     lhs, rhs [n], [n, D] or [n, H, D] whose feature shapes broadcast (NumPy
//              rules past the first axis), float32 or bfloat16; CopyLhs needs
//              no rhs, CopyRhs no lhs
//              (Dot: the same rank and last axis, DGL's rule; heads may broadcast)
//     returns  [nnz] + the broadcast feature shape; Dot sums the last axis:
//              [nnz, H] for [n, H, D] operands, [nnz] for [n, D] ones.
//              Dot returns float32 (scores feed edge_softmax, as sddmm_dot);
//              the others bfloat16 when every operand is bfloat16, else float32
//   Products and sums in float, each output rounded once.
//   Differentiable in both operands (g-SpMM on A or Aᵀ, no atomics).
//
// Which kernel runs is decided here, once per call: Dot of two node tensors
// of one shape on opposite ends (V with U, or U with V) is the tuned SDDMM
// (ops/sddmm.hpp: the measured path choice); everything else the
// generalized kernel (ops/gspmm_backend.hpp), one pass over the entries that
// reads a V operand once per row. Peak memory: the output.
//
// Every tensor on A's device; bad shapes, dtypes, devices or a missing
// operand -> InvalidArgument naming gsddmm, the argument and the shapes.
#pragma once

#include <string_view>

#include "core/adjacency.hpp"
#include "core/tensor.hpp"
#include "ops/message_passing.hpp"

namespace sgnn::ops {

Tensor gsddmm(const Adjacency& adjacency, BinaryKind op, const Tensor& lhs, const Tensor& rhs,
              Target lhs_target = Target::U, Target rhs_target = Target::V);
// DGL's names: gsddmm(A, "u_add_v"...) is gsddmm(A, "add", x, y, "u", "v").
Tensor gsddmm(const Adjacency& adjacency, std::string_view op, const Tensor& lhs, const Tensor& rhs,
              std::string_view lhs_target = "u", std::string_view rhs_target = "v");

// Node rows onto edges: x[col(k)] (U) or x[row(k)] (V) for every entry k.
inline Tensor edge_rows(const Adjacency& adjacency, const Tensor& x, Target target) {
  return gsddmm(adjacency, BinaryKind::CopyLhs, x, Tensor(), target, target);
}

}  // namespace sgnn::ops
