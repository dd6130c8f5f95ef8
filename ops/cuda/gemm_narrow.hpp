// FP32 products with a narrow output (at most 64 columns) on TF32 tensor
// cores at FP32 accuracy: one of the candidates gemm_algorithm.cpp times for
// a shape beside cuBLASLt's (CUDA backend only).
//
// Why: a layer whose output is a few dozen classes (SGC's only product, the
// last layer of the others) gets cuBLAS FFMA kernels with 64-wide tiles that
// 41 columns fill two thirds of, about a third of the H200's FP32 rate
// (docs/kernels.md). Each term here is three TF32 products
// (CUTLASS's 3xTF32): x = big + small with big = x rounded to TF32 and
// small = x − big (exact in FP32), and x·w ≈ big·big + big·small +
// small·big, accumulated in FP32 by the tensor cores. The dropped
// small·small term and the TF32 truncation of the small parts leave a
// relative error of about 2^-21 per product, against FP32's 2^-24, at up to
// three times the FFMA rate. Forms (row-major, every operand FP32):
//   rows_times_weight  c [M, N] = x [M, K] · w [K, N], N ≤ 64, w staged in
//                      shared memory (K · ⌈N/8⌉ · 256 bytes must fit);
//   weight_gradient    c [K, N] = xᵀ · g for x [M, K], g [M, N], N ≤ 64, the
//                      sum over M split into blocks whose partial [K, N]
//                      products go to the workspace and are then added in a
//                      fixed order (deterministic for a device and shape).
#pragma once

#include <cstddef>

#include "ops/cuda/gemm_algorithm.hpp"

namespace sgnn::ops::gemm_cuda {

enum class NarrowForm { none, rows_times_weight, weight_gradient };

// Which form computes this column-major call (gemm_algorithm.hpp's GemmCall
// of ops/cuda/matmul.cpp's swapped operands), or none: FP32 operands and
// result under CUBLAS_COMPUTE_32F, at most 64 output columns, and for
// weight_gradient partial products that fit the context's workspace.
NarrowForm narrow_form_of(const GemmContext& context, const GemmCall& call);

// Runs the form on the library's stream of the context's device; the
// workspace is scratch for weight_gradient. CUDA errors -> CudaError.
void run_narrow(const GemmContext& context, const GemmCall& call, NarrowForm form);

}  // namespace sgnn::ops::gemm_cuda
