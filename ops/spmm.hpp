// Sparse × dense matrix product on an Adjacency (aggregation in GNNs).
//
//   spmm(A, edge_values, b)  C[i] = Σ_{e=(i,j) ∈ A} v[e] · b[j]
//     edge_values  undefined (every entry weighs 1), [nnz] or [nnz, H], float32,
//                  in A's edge order
//     b            [n_cols, F] float32; [n_cols, H, F] when edge_values is [nnz, H]
//     returns      [n_rows, F] or [n_rows, H, F] (head h uses v[:, h] and b[:, h, :])
//   Differentiable in b (dB = Aᵀ·dC on adjacency.transpose, values gathered
//   through transpose_to_csr: deterministic, no atomics) and in edge_values
//   (dv = SDDMM(dC, b) on A's pattern).
//
//   spmm(A, b)  the GCN form: weights adjacency.values (transpose_values in
//               backward) when defined, else the pattern; differentiable in b.
//               Runs the HRPB tensor-core kernel instead when
//               adjacency.spmm_format selects it (ops/spmm_format.hpp).
//
// Every tensor on A's device; bad shapes, dtypes or devices -> InvalidArgument.
#pragma once

#include "core/adjacency.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

Tensor spmm(const Adjacency& adjacency, const Tensor& edge_values, const Tensor& b);
Tensor spmm(const Adjacency& adjacency, const Tensor& b);

}  // namespace sgnn::ops
