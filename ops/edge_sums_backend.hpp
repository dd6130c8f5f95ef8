// Backend entry points of the per-node sums of a per-edge tensor (see
// ops/backend.hpp). The gradient of x[row(e), h] + y[col(e), h] (sddmm_add,
// attention_softmax) is its row sums on A and its row sums on Aᵀ read through
// the edge map (ops/sparse_runners.cpp, edge_sum_gradients): no gathered copy
// of the per-edge tensor, no SpMM against a column of ones. Outputs are
// preallocated; every tensor is on the CSR's device.
#pragma once

#include "core/csr.hpp"
#include "ops/backend.hpp"

namespace sgnn::ops {

// out[r, h] = Σ_{e in row r of csr} values[m(e), h] for h < heads, where
// m(e) = map[e] when `map` is defined (int32 or int64 [csr.nnz]; for Aᵀ,
// Adjacency::transpose_to_csr: the A edge of each Aᵀ entry) and e otherwise.
// values float32 or bfloat16 [nnz · heads]; out float32 [csr.num_rows · heads],
// float sums (the CPU in the row's entry order, CUDA in a fixed order of its
// own: deterministic); rows without entries get 0.
void edge_sums(Cpu, const Csr& csr, int64_t heads, const Tensor& values, const Tensor& map, Tensor& out);
void edge_sums(Cuda, const Csr& csr, int64_t heads, const Tensor& values, const Tensor& map, Tensor& out);

}  // namespace sgnn::ops
