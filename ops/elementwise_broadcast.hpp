// NumPy broadcasting for the binary elementwise ops: the output shape of two
// operands and the merged layout the backends walk (BroadcastLayout,
// ops/elementwise_backend.hpp), and the reduction of a gradient back onto an
// operand that was repeated.
#pragma once

#include "core/tensor.hpp"
#include "ops/elementwise_backend.hpp"

namespace sgnn::ops {

// NumPy's rule: trailing axes aligned, each pair of extents equal or one of
// them 1 (an absent axis counts as 1). Otherwise InvalidArgument naming `op`
// and both shapes.
Shape broadcast_shape(const Shape& a, const Shape& b, const char* op);

// The layout of a op b for shapes that broadcast. More than
// kMaxBroadcastAxes merged axes (operands that alternate between varying and
// repeating along more axes than that) -> InvalidArgument naming `op`.
BroadcastLayout broadcast_layout(const Shape& a, const Shape& b, const char* op);

// `full` (the output's numel, float32 or bfloat16) summed over the axes along
// which operand `operand` of `layout` repeats, times `factor`, as a tensor of
// `shape` and `dtype`. Sums accumulate in float (deterministic, see
// ops/reduce_backend.hpp); intermediate passes stay float32, so the result
// is rounded once.
Tensor sum_to_operand(const Tensor& full, const BroadcastLayout& layout, int operand, float factor,
                      const Shape& shape, DType dtype);

}  // namespace sgnn::ops
