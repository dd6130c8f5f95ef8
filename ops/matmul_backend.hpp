// Backend entry points of ops/matmul.hpp (see ops/backend.hpp).
#pragma once

#include "ops/backend.hpp"

namespace sgnn::ops {

// c = op(a) · op(b), where op(t) is t or its transpose. op(a) is [m,k], op(b)
// [k,n], c [m,n] preallocated; all row-major on one device, a and b of one
// dtype (float32 or bfloat16), c float32 or that dtype. The
// transposed forms serve the backward pass (dA = dC·Bᵀ, dB = Aᵀ·dC) without
// materialising a transpose on the GPU.
void matmul_forward(Cpu, const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& c);
void matmul_forward(Cuda, const Tensor& a, bool transpose_a, const Tensor& b, bool transpose_b, Tensor& c);

}  // namespace sgnn::ops
