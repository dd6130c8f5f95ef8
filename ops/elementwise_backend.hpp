// Backend entry points of ops/elementwise.hpp (see ops/backend.hpp).
#pragma once

#include "ops/backend.hpp"

namespace sgnn::ops {

enum class BinaryOp : unsigned char { Add, Mul };

// out[i] = a[i] op b[i % b.numel()]: b is repeated over a's leading axes (b's
// numel divides a's). out has a's numel; it may alias a. Any mix of float32
// and bfloat16 among a, b and out: computed in float, rounded to out's dtype.
void binary_forward(Cpu, BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out);
void binary_forward(Cuda, BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out);

// out[i] = x[i] · factor (x and out of one floating dtype)
void scale_forward(Cpu, const Tensor& x, float factor, Tensor& out);
void scale_forward(Cuda, const Tensor& x, float factor, Tensor& out);

}  // namespace sgnn::ops
