// Backend entry points of ops/spmm.hpp (see ops/backend.hpp). Outputs are
// preallocated by the caller; every tensor is contiguous and on one device.
#pragma once

#include "core/csr.hpp"
#include "ops/backend.hpp"
#include "ops/spmm_tile.hpp"

namespace sgnn::ops {

// c[i, h, :] = Σ_{e in row i} v[e, h] · b[col(e), h, :] for h < heads.
//   values  undefined (every entry weighs 1) or [nnz · heads] float32 or bfloat16 (read as float)
//   symmetric_scale  with values undefined: null, or [num_rows] float64 on
//           csr's device (Adjacency::symmetric_scale): entry (r, c) weighs
//           float(s[r] · s[c])
//   b       [num_cols, heads · features], c [num_rows, heads · features],
//           both float32 or both bfloat16
//   value_map  undefined (v in csr's order), or [nnz] int32 on csr's device:
//           entry e weighs v[value_map[e], h] (the values in another edge
//           order: A's values for Aᵀ through transpose_to_csr, without
//           gathering them first)
//   average  each row's sum times 1 / (its entry count) (g-SpMM's Mean), in float
//   launch  what CUDA runs (decided by ops/spmm_choice.hpp: csr_spmm_into
//           decides and calls this); its tile must have a kernel and, where
//           it makes 16-byte accesses, B and C must allow them (else
//           InvalidArgument). The CPU has one kernel and ignores it.
// Sums in float in the row's CSR order; a bfloat16 C holds each float sum
// rounded once (to nearest, ties to even). Each output row is written
// exactly once (rows without entries get 0).
void spmm_forward(Cpu, const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                  Tensor& c, const double* symmetric_scale = nullptr, const Tensor& value_map = Tensor(),
                  bool average = false, const CsrSpmmLaunch& launch = {});
void spmm_forward(Cuda, const Csr& csr, const Tensor& values, int64_t heads, int64_t features, const Tensor& b,
                  Tensor& c, const double* symmetric_scale, const Tensor& value_map, bool average,
                  const CsrSpmmLaunch& launch);

// out[k, :] = in[map[k], :]: moves a per-edge tensor [nnz, ...] from one edge
// order to another (A's to Aᵀ's through transpose_to_csr). map int32 or int64;
// in and out float32 or bfloat16, one dtype.
void gather_edges(Cpu, const Tensor& map, const Tensor& in, Tensor& out);
void gather_edges(Cuda, const Tensor& map, const Tensor& in, Tensor& out);

}  // namespace sgnn::ops
