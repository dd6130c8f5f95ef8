// Backend entry points of ops/elementwise.hpp (see ops/backend.hpp).
#pragma once

#include <cstdint>

#include "ops/backend.hpp"

namespace sgnn::ops {

enum class BinaryOp : unsigned char { Add, Sub, Mul, Div, Maximum, Minimum };

inline constexpr int kMaxBroadcastAxes = 8;

// A broadcast of a and b to their common output shape, with adjacent axes
// merged where both operands behave alike along them (both vary, or one
// repeats) and axes of extent 1 dropped. Axis k (outermost first) has
// extents[k] output elements; operand j (0: a, 1: b) advances strides[j][k]
// of its own elements per step along it, 0 where it repeats. Equal shapes and
// a scalar give one axis; a bias [D] on [N, D] or a column [N, 1] on [N, D]
// give two. Built by broadcast_layout (ops/elementwise_broadcast.hpp).
struct BroadcastLayout {
  int axes = 0;
  int64_t numel = 0;  // output elements
  int64_t extents[kMaxBroadcastAxes] = {};
  int64_t strides[2][kMaxBroadcastAxes] = {};
};

// out = a op b over `layout` (out has the output's numel; it may alias a when
// a has the output's shape). Any mix of float32 and bfloat16 among a, b and
// out: computed in float, rounded once to out's dtype.
void binary_forward(Cpu, BinaryOp op, const Tensor& a, const Tensor& b, const BroadcastLayout& layout, Tensor& out);
void binary_forward(Cuda, BinaryOp op, const Tensor& a, const Tensor& b, const BroadcastLayout& layout, Tensor& out);

// out = grad · ∂(a op b)/∂(operand) elementwise over the output's shape
// (operand 0: a, 1: b); grad has the output's numel; reducing out over the
// operand's repeated axes is the caller's. Dtypes as binary_forward.
void binary_backward(Cpu, BinaryOp op, int operand, const Tensor& grad, const Tensor& a, const Tensor& b,
                     const BroadcastLayout& layout, Tensor& out);
void binary_backward(Cuda, BinaryOp op, int operand, const Tensor& grad, const Tensor& a, const Tensor& b,
                     const BroadcastLayout& layout, Tensor& out);

// out[i] = x[i] · factor (x and out of one floating dtype)
void scale_forward(Cpu, const Tensor& x, float factor, Tensor& out);
void scale_forward(Cuda, const Tensor& x, float factor, Tensor& out);

}  // namespace sgnn::ops
