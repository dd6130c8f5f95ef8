// Dense matrix product, differentiable in both operands.
#pragma once

#include "core/tensor.hpp"

namespace sgnn::ops {

// a [m,k] float32 · b [k,n] float32 -> [m,n], same device (CPU: cache-blocked
// OpenMP loop; CUDA: cuBLAS on the library's stream). Throws InvalidArgument on
// a rank other than 2, mismatched inner extents, another dtype or mixed devices.
// Like the reference BLAS, the CPU backend skips zero entries of the left
// operand (fast on sparse bag-of-words features), so an Inf/NaN in b that
// only meets zeros of a does not reach the result there; cuBLAS propagates it.
Tensor matmul(const Tensor& a, const Tensor& b);

// Lets cuBLAS use TF32 tensor cores (10-bit mantissa products, fp32 accumulate)
// for every later CUDA matmul. Default false: full fp32. No effect on the CPU.
void set_allow_tf32(bool allowed);
bool allow_tf32();

}  // namespace sgnn::ops
