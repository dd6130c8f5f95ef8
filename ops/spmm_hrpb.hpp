// SpMM on the HRPB layout (cuTeSpMM): C = A·B with A held as an
// HrpbAdjacency (graph_io::build_hrpb), on tensor cores on CUDA.
//
//   hrpb  the HRPB of A and of Aᵀ, on b's device
//   b     float32 or bfloat16 [A.num_cols, F], any F ≥ 1, contiguous
//   ->    b's dtype [A.num_rows, F], freshly allocated
//
// Differentiable in b: dB = Aᵀ·dC, an SpMM on hrpb.transpose. The values
// are fixed (GCN weights); they get no gradient.
// Precision, float32 b: the CUDA kernel multiplies in TF32 (10-bit mantissa)
// with FP32 accumulation: relative error about 1e-3 against float64; the CPU
// backend is FP32. Split panels (hrpb.forward.schedule) are merged with
// atomics unless the HRPB was built deterministic (then in a fixed order,
// bitwise reproducible).
// Precision, bfloat16 b (both backends, BF16 mma.sync m16n8k16 on CUDA): A's
// float32 values are rounded to bfloat16 (nearest even; exact for small
// integers such as 0/1 weights, not for 1/sqrt(d_i d_j)), products of the
// bf16 operands are exact in float32 and summed in float32, C is rounded to
// bfloat16 once (split panels summed in float32 slots first, always in a
// fixed order). Per element, with u = 2^-8 (bfloat16's unit roundoff) and k
// the non-zeros of the row:
//   |c - (A·b)_exact| <= u·|c_exact| + 1.01·(u + k·2^-22)·Σ_j |a_ij b_jf|
// (C's rounding; A's rounding; float32 sums, tensor-core adds counted as
// truncating). b's own rounding to bfloat16 is the caller's.
// Throws InvalidArgument on a shape, dtype or device mismatch.
#pragma once

#include <cstdint>

#include "core/hrpb.hpp"
#include "core/tensor.hpp"

namespace sgnn::ops {

// How the BF16 CUDA kernel stages a block's 16 B rows into shared memory:
// one bulk (TMA) copy per row, or 16-byte copies spread over the threads.
// The same sums in the same order, so the same bits; which is faster
// depends on the matrix (bulk on the 3D FEM matrices, copies on 2D
// stencils and meshes at width 128; docs/kernels.md), so ops::spmm times
// both (ops/spmm_format.hpp). Bulk copies need rows of 144 bytes: below
// that, and for float32 b or on the CPU, `staging` changes nothing.
enum class HrpbRowStaging { BulkCopies, Copies };

// Whether HrpbRowStaging changes the kernel for b of this dtype and width.
bool hrpb_row_staging_matters(DType dtype, int64_t width);

Tensor spmm_hrpb(const HrpbAdjacency& hrpb, const Tensor& b, HrpbRowStaging staging = HrpbRowStaging::BulkCopies);

// Thread blocks of the HRPB kernel that `device` runs at once for feature
// width `width` (SMs × resident blocks, from the CUDA occupancy calculator):
// pass it as graph_io::HrpbOptions::concurrent_blocks for an exact schedule.
// 132 × 8 (an H100) for the CPU or a CPU-only build.
int64_t spmm_hrpb_concurrent_blocks(Device device, int64_t width);

}  // namespace sgnn::ops
