// An FP32 product with a narrow output (at most 64 columns) on TF32 tensor
// cores at FP32 accuracy: a candidate gemm_algorithm.cpp times for a shape
// beside cuBLASLt's (CUDA backend only).
//
// Why: a layer whose output is a few dozen classes (SGC's only product, the
// last layer of the others) gets cuBLAS FFMA kernels with 64-wide tiles that
// 41 columns fill two thirds of, about a third of the H200's FP32 rate
// (docs/kernels.md). Each term here is three TF32 products (CUTLASS's
// 3xTF32): x = big + small with big = x rounded to TF32 and small = x − big
// (exact in FP32), and x·w ≈ big·big + big·small + small·big, accumulated in
// FP32 by the tensor cores. The dropped small·small term and the TF32
// truncation of the small parts leave a relative error of about 2^-21 per
// product, against FP32's 2^-24, at up to three times the FFMA rate.
//
// Form (row-major, every operand FP32): c [M, N] = x [M, K] · w [K, N] with
// N ≤ 64, w staged in shared memory (K · ⌈N/8⌉ · 256 bytes must fit a block).
// The weight gradient xᵀ·dY has no such kernel: ours lost to cuBLAS on every
// shape measured (docs/kernels.md), so it was removed.
#pragma once

#include "ops/cuda/gemm_algorithm.hpp"

namespace sgnn::ops::gemm_cuda {

// Whether the kernel computes this column-major call (gemm_algorithm.hpp's
// GemmCall of ops/cuda/matmul.cpp's swapped operands): no transposes, FP32
// operands and result under CUBLAS_COMPUTE_32F, at most 64 output columns,
// and w's fragments within the device's shared memory per block.
bool narrow_applies(const GemmContext& context, const GemmCall& call);

// Runs it on the library's stream of the context's device. A call it does
// not take -> InvalidArgument; CUDA errors -> CudaError.
void run_narrow(const GemmContext& context, const GemmCall& call);

}  // namespace sgnn::ops::gemm_cuda
