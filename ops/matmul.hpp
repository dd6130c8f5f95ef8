// Dense matrix product, differentiable in both operands.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

// a [m,k] · b [k,n] -> [m,n], same device (CPU: cache-blocked OpenMP loop;
// CUDA: cuBLAS on the library's stream). a and b both float32 or both
// bfloat16; the result has their dtype. bfloat16: products and sums in float
// (cuBLAS BF16 tensor cores with CUBLAS_COMPUTE_32F; the CPU widens the
// operands to float), the result rounded once; against the exact product of
// the bfloat16 operands the error is one rounding (2^-8 relative) plus the
// float accumulation (k · 2^-24). Throws InvalidArgument on a rank other than
// 2, mismatched inner extents, other or mixed dtypes, or mixed devices.
// Like the reference BLAS, the CPU backend skips zero entries of the left
// operand (fast on sparse bag-of-words features), so an Inf/NaN in b that
// only meets zeros of a does not reach the result there; cuBLAS propagates it.
Tensor matmul(const Tensor& a, const Tensor& b);

// x [m,k] · weight [k,n] in x's precision, for layers whose float32 weight
// (the master copy the optimizer updates) has a bfloat16 copy:
//   x float32: matmul(x, weight); weight_copy is ignored (may be undefined).
//   x bfloat16: the product of x and weight_copy (bfloat16 [k,n], the master
//     rounded: training::Module keeps it so) -> bfloat16 [m,n]. Gradients:
//     x gets dY·copyᵀ (bfloat16), weight gets xᵀ·dY computed with a float32
//     output (never rounded to bfloat16). weight_copy gets none.
// weight must be float32; shapes, dtypes and devices as for matmul, else
// InvalidArgument. A float32 x that carries its non-zeros (input features,
// core/sparse_rows.hpp) is multiplied over them where that measured faster
// (ops/sparse_input.hpp).
Tensor matmul_weight(const Tensor& x, const Tensor& weight, const Tensor& weight_copy);

// Lets cuBLAS use TF32 tensor cores (10-bit mantissa products, fp32 accumulate)
// for every later CUDA matmul. Default false: full fp32. No effect on the CPU.
void set_allow_tf32(bool allowed);
bool allow_tf32();

}  // namespace sgnn::ops
