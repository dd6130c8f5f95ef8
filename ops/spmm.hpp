// Sparse × dense matrix product on an Adjacency (aggregation in GNNs).
//
//   spmm(A, edge_values, b)  C[i] = Σ_{e=(i,j) ∈ A} v[e] · b[j]
//     edge_values  undefined (every entry weighs 1), [nnz] or [nnz, H], float32
//                  or bfloat16 (read as float by the kernels, whatever b's
//                  dtype; its gradient comes back in its dtype), in A's edge order
//     b            [n_cols, F] float32 or bfloat16; [n_cols, H, F] when
//                  edge_values is [nnz, H]
//     returns      [n_rows, F] or [n_rows, H, F] in b's dtype (head h uses
//                  v[:, h] and b[:, h, :])
//   Precision: products and sums in float32 (each row's entries in CSR
//   order, split rows as partial sums added in segment order); a bfloat16
//   result is that float sum rounded once to nearest, ties to even, so it is
//   within one bfloat16 rounding (relative 2^-8) of the float32 result of the
//   same bfloat16 inputs. Backward likewise: dB in b's dtype; the
//   edge-value gradient is an SDDMM (products and sums in float) stored in
//   the values' dtype, rounded once for bfloat16.
//   On CUDA a bfloat16 result is bitwise reproducible whether or not
//   ops::set_deterministic is on (split rows always sum their partials in order).
//   Differentiable in b (dB = Aᵀ·dC on adjacency.transpose, values gathered
//   through transpose_to_csr: deterministic, no atomics) and in edge_values
//   (dv = SDDMM(dC, b) on A's pattern).
//
//   spmm(A, b)  the GCN form: weights adjacency.values (transpose_values in
//               backward) when defined, else adjacency.symmetric_scale's
//               float(s[r] · s[c]) (bitwise the same sums as the stored
//               values), else the pattern; differentiable in b.
//               Runs the HRPB tensor-core kernel instead when
//               adjacency.spmm_format selects it (ops/spmm_format.hpp), in
//               b's dtype (BF16 tensor cores for bfloat16, ops/spmm_hrpb.hpp).
//
// Every tensor on A's device; bad shapes, dtypes or devices -> InvalidArgument.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor spmm(const Adjacency& adjacency, const Tensor& edge_values, const Tensor& b);
Tensor spmm(const Adjacency& adjacency, const Tensor& b);

}  // namespace sgnn::ops
